// A Gemini content's parts with their values as sent, for readers that
// show a call's arguments or a tool's result with its keys in wire order
// (the simulated user's history, rendered as ADK renders it).

package wire

import (
	"bytes"
	"encoding/json"
)

// RawPart is one part of a content: its text, whether that is a thought,
// and its function call or response with the value kept as JSON.
type RawPart struct {
	Text     string
	Thought  bool
	Call     *RawCall // a functionCall part's name and args
	Response *RawCall // a functionResponse part's name and response
}

// RawCall is a function call's or response's name (nil when it has none)
// and its args or response as sent (nil when absent).
type RawCall struct {
	Name  *string
	Value json.RawMessage
}

// RawParts reads a content's parts (genai's Content JSON), each key in
// camelCase or snake_case, as ADK's events spell them either way; nil for
// anything that is not a content.
func RawParts(content []byte) []RawPart {
	var c struct {
		Parts []map[string]json.RawMessage `json:"parts"`
	}
	if json.Unmarshal(content, &c) != nil {
		return nil
	}
	var out []RawPart
	for _, p := range c.Parts {
		var part RawPart
		json.Unmarshal(p["text"], &part.Text)
		json.Unmarshal(p["thought"], &part.Thought)
		part.Call = rawCall(p, "functionCall", "function_call", "args")
		part.Response = rawCall(p, "functionResponse", "function_response", "response")
		out = append(out, part)
	}
	return out
}

// rawCall is the object under camel, else snake, with its name and the
// member value; nil when neither is an object.
func rawCall(part map[string]json.RawMessage, camel, snake, value string) *RawCall {
	for _, k := range [2]string{camel, snake} {
		var m map[string]json.RawMessage
		if raw := bytes.TrimSpace(part[k]); len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
			continue
		}
		rc := &RawCall{Value: m[value]}
		var name string
		if json.Unmarshal(m["name"], &name) == nil && m["name"] != nil && !bytes.Equal(bytes.TrimSpace(m["name"]), []byte("null")) {
			rc.Name = &name
		}
		return rc
	}
	return nil
}
