// The few facts of a JSON-RPC message the relay needs to route it.

package mcp

import (
	"bytes"
	"encoding/json"
)

// kind is what a JSON-RPC message is, by its members.
type kind int

const (
	kindInvalid      kind = iota
	kindRequest           // method and id: answered by a response with its id
	kindNotification      // method, no id: never answered
	kindResponse          // id with result or error
	kindBatch             // an array (MCP 2025-03-26 allowed them)
)

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// classify reads a message's kind and its id (as its JSON text, so 1 and
// "1" stay apart).
func classify(line []byte) (kind, string) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		return kindBatch, ""
	}
	var e envelope
	if json.Unmarshal(line, &e) != nil {
		return kindInvalid, ""
	}
	hasID := len(e.ID) > 0 && string(e.ID) != "null"
	switch {
	case e.Method != nil && hasID:
		return kindRequest, string(e.ID)
	case e.Method != nil:
		return kindNotification, ""
	case hasID:
		return kindResponse, string(e.ID)
	}
	return kindInvalid, ""
}

// errorResponse is a JSON-RPC error answering the request with id.
func errorResponse(id string, message string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      json.RawMessage(id),
		"error":   map[string]any{"code": -32603, "message": message},
	})
	return b
}
