// Package runview owns a run as people see it: a folder of cassettes read
// back as cassettes → sessions → invocations → steps, each step with its
// agent, the tool results it was sent, the tool calls and text it answered
// with, its usage and latency (Run, Build), and the table 'adkproxy ls'
// prints (WriteTable). Its JSON form is the document of 'adkproxy ls
// --json'.
//
// The grouping itself is conversation.Group; the bodies are read with
// cassettes.TrajectoryOf. Views that compare or render runs (diff, score
// pages) start from the same model: each step keeps its exchange for what
// the table does not show (generation config, system instruction, tool
// declarations).
package runview
