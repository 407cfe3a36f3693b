package wire

import (
	"slices"
	"testing"
)

// TestMatchingAcrossDialects: what the matcher asks of all dialects at
// once gives Gemini's bodies Gemini's rules, whatever else is listed.
func TestMatchingAcrossDialects(t *testing.T) {
	model, tools := Volatile(false), Volatile(true)
	for _, p := range []string{"contents[*].parts[*].functionCall.id", "contents[*].parts[*].functionResponse.id"} {
		if !slices.Contains(model, p) || slices.Contains(tools, p) {
			t.Errorf("%s: model %v, tools %v", p, model, tools)
		}
	}
	for field, want := range map[string]string{"systemInstruction": "system_instruction", "tools": "tools",
		"generationConfig": "generation_config", "contents": "contents", "toolConfig": "", "safetySettings": "", "labels": ""} {
		if got := Group(field); got != want {
			t.Errorf("group of %s: %q, want %q", field, got, want)
		}
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"name": "get_weather", "description": "d"}, "get_weather"},
		{map[string]any{"functionCall": map[string]any{"name": "f"}}, "f"},
		{map[string]any{"functionResponse": map[string]any{"name": "g"}}, "g"},
		{map[string]any{"role": "user", "parts": []any{}}, ""},
		{map[string]any{"text": "hi"}, ""},
	} {
		if got := ElementName(c.v); got != c.want {
			t.Errorf("name of %v: %q, want %q", c.v, got, c.want)
		}
	}
	if a := ArrayAt("contents", nil, nil); !a.Aligned || !a.Paired || a.Key != nil {
		t.Errorf("contents: %+v", a)
	}
	if a := ArrayAt("tools[0].functionDeclarations", nil, nil); !a.Aligned || a.Paired || a.Key == nil {
		t.Errorf("declarations: %+v", a)
	} else if k, ok := a.Key(map[string]any{"name": ""}); !ok || k != "" {
		t.Errorf("an empty name is a name: %q %v", k, ok)
	}
	if a := ArrayAt("contents[3].parts", nil, nil); !a.Labelled || a.Aligned {
		t.Errorf("parts: %+v", a)
	}
	for _, p := range []string{"tools", "contents[x].parts", "tools[1].functionDeclarations[0].parameters"} {
		if a := ArrayAt(p, []any{map[string]any{"functionDeclarations": []any{}}}, nil); a.Aligned || a.Labelled {
			t.Errorf("%s: %+v", p, a)
		}
	}
	if m := Members(); !slices.Contains(m, "contents") || !slices.Contains(m, "systemInstruction") {
		t.Errorf("members %v", m)
	}
}
