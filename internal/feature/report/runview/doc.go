// Package runview owns a run as people see it: a folder of cassettes read
// back as cassettes → sessions → invocations → steps (Run, Build,
// CassetteOf), each step with its agent and model, the tool results it was
// sent, the tool calls and text it answered with, its usage and latency;
// each invocation with its final response and summed usage and latency;
// and what an agent was sent besides the conversation (Step.Sent: system
// instruction, generation config, tools). Its JSON form is the document of
// 'adkproxy ls --json' (WriteJSON); WriteTable prints the table of
// 'adkproxy ls'.
//
// The grouping itself is conversation.Group; bodies are read with
// wire.StepOf. Scoring reads recorded sessions from this model,
// and views that compare or render runs (diff, HTML pages) start from it
// too: each step keeps its exchange for anything the model does not carry.
package runview
