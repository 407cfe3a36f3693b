// Package toolfake is the tool world a test declares: a file of fakes,
// each (tool or host, argument matcher) → result, error or delay, that
// answer MCP tool calls, A2A calls and HTTP tool requests instead of their
// recordings or their servers, consumed in file order, with a report of
// what was served and what was left.
package toolfake
