// Package wire is the one reader of model and tool traffic, one file per
// dialect (MCP's JSON-RPC over stdio and HTTP among them).
package wire
