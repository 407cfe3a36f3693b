package pyjson

import (
	"encoding/json"
	"testing"
)

// Indent writes what Python's json.dumps(v, indent=2) writes (with
// ensure_ascii) and what pydantic's model_dump_json(indent=2) writes
// (without): objects in their key order, maps sorted, empty containers
// on one line, <, > and & as they are, numbers as written.
func TestIndentAsPython(t *testing.T) {
	v, err := Decode("t.json", []byte(`{"zeta": [], "alpha": {"b": 1.5, "a": {}}, "s": "<Zürich> & 😀", "n": null, "l": [true, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"zeta\": [],\n  \"alpha\": {\n    \"b\": 1.5,\n    \"a\": {}\n  },\n  \"s\": \"<Z\\u00fcrich> & \\ud83d\\ude00\",\n  \"n\": null,\n  \"l\": [\n    true,\n    2\n  ]\n}"
	if got := Indent(v.V, true); got != want {
		t.Errorf("ensure_ascii:\n%s\nwant\n%s", got, want)
	}
	o := NewObject()
	o.Set("m", map[string]any{"y": "Zürich", "x": json.Number("3")})
	o.Set("k", []string{"a"})
	want = "{\n  \"m\": {\n    \"x\": 3,\n    \"y\": \"Zürich\"\n  },\n  \"k\": [\n    \"a\"\n  ]\n}"
	if got := Indent(o, false); got != want {
		t.Errorf("pydantic:\n%s\nwant\n%s", got, want)
	}
	if got := Indent([]any{}, false) + Indent(NewObject(), false); got != "[]{}" {
		t.Errorf("empty: %s", got)
	}
}
