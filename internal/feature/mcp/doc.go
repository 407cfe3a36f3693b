// Package mcp is `adkproxy mcp`: a stdio MCP server's traffic relayed
// through the running record or replay, and how a server's process, given
// only a minimal environment, finds that proxy. The proxy files each
// JSON-RPC exchange as a tool exchange; internal/wire reads it.
package mcp
