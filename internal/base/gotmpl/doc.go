// Package gotmpl parses and renders the Go text/template files adkproxy
// reads from a user's repository (judge prompts of score --judge-prompts,
// the prompt of an LLM-scored metric in an eval config) within a budget:
// output, the bytes its functions build, and time. text/template bounds
// none of them, so {{range 100000000}} over 64 bytes of text asked for
// 6.4 GB.
package gotmpl
