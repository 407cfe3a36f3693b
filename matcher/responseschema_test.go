package matcher

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// ADK Go sends each function tool's responseJsonSchema: a changed output
// struct changes every request, and the --ignore path docs/matching.md
// gives opts out of it (and of nothing else).
func TestIgnoreResponseSchemaPath(t *testing.T) {
	req := func(outputProps, city string) *cassettes.Request {
		return &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"` + city + `"}]}],
			"tools":[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object"},
			"responseJsonSchema":{"type":"object","properties":{` + outputProps + `}}}]}]}`)}
	}
	recorded, refactored := req(`"temp_c":{"type":"number"}`, "Paris"), req(`"temp_c":{"type":"number"},"wind":{"type":"number"}`, "Paris")
	if diffs := Default().Diff(recorded, refactored); len(diffs) != 1 {
		t.Fatalf("%d differences, want the schema's one: %v", len(diffs), diffs)
	}
	m, err := New("tools[*].functionDeclarations[*].responseJsonSchema")
	if err != nil {
		t.Fatal(err)
	}
	if diffs := m.Diff(recorded, refactored); len(diffs) != 0 || m.Fingerprint(recorded) != m.Fingerprint(refactored) {
		t.Errorf("ignored, the schema still differs: %v", diffs)
	}
	if diffs := m.Diff(recorded, req(`"temp_c":{"type":"number"}`, "Rome")); len(diffs) != 1 {
		t.Errorf("the ignore hid more than the schema: %v", diffs)
	}
}
