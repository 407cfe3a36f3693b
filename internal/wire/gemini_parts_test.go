package wire

import (
	"encoding/json"
	"testing"
)

// TestRawParts: a content's parts in either spelling, a call's arguments
// and a result kept as sent (keys in wire order), thoughts marked, a name
// that is missing told apart from an empty one.
func TestRawParts(t *testing.T) {
	parts := RawParts([]byte(`{"role": "model", "parts": [
	  {"text": "thinking", "thought": true},
	  {"text": "Let me look."},
	  {"functionCall": {"name": "get_weather", "args": {"zip": "75001", "city": "Paris"}}},
	  {"function_response": {"name": "get_weather", "response": {"temp_c": 21, "sky": "sunny"}}},
	  {"functionCall": null, "function_call": {"args": null}}]}`))
	if len(parts) != 5 {
		t.Fatalf("%d parts, want 5: %+v", len(parts), parts)
	}
	if p := parts[0]; p.Text != "thinking" || !p.Thought || parts[1].Thought || parts[1].Text != "Let me look." {
		t.Errorf("texts: %+v %+v", p, parts[1])
	}
	if c := parts[2].Call; c == nil || c.Name == nil || *c.Name != "get_weather" || string(c.Value) != `{"zip": "75001", "city": "Paris"}` || parts[2].Response != nil {
		t.Errorf("call: %+v", parts[2])
	}
	if r := parts[3].Response; r == nil || *r.Name != "get_weather" || string(r.Value) != `{"temp_c": 21, "sky": "sunny"}` {
		t.Errorf("snake_case response: %+v", parts[3])
	}
	if c := parts[4].Call; c == nil || c.Name != nil || string(c.Value) != "null" {
		t.Errorf("a call under snake_case after a null camelCase one, with no name: %+v", parts[4])
	}
	if RawParts([]byte(`[1]`)) != nil || RawParts([]byte(`not json`)) != nil {
		t.Error("parts of something that is not a content")
	}
}

func FuzzRawParts(f *testing.F) {
	f.Add([]byte(`{"parts": [{"text": "a"}, {"functionCall": {"name": "f", "args": {"b": 1}}}, {"function_response": {"response": 2}}]}`))
	f.Fuzz(func(t *testing.T, content []byte) {
		for _, p := range RawParts(content) {
			for _, c := range []*RawCall{p.Call, p.Response} {
				if c != nil && c.Value != nil && !json.Valid(c.Value) {
					t.Errorf("a value that is not JSON: %q", c.Value)
				}
			}
		}
	})
}
