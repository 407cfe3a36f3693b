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

// A difference inside a declaration is addressed by the function's name,
// and that path, given to --ignore, leaves out that declaration's field
// (in matching as in diffs) and no other's.
func TestDeclarationsAddressedByName(t *testing.T) {
	body := func(weatherCity, timeCity string) *cassettes.Request {
		decl := func(name, city string) string {
			return `{"name":"` + name + `","parametersJsonSchema":{"type":"object","properties":{"` + city + `":{"type":"string"}}}}`
		}
		return &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(
			`{"contents":[],"tools":[{"functionDeclarations":[` + decl("get_local_time", timeCity) + `,` + decl("get_weather", weatherCity) + `]}]}`)}
	}
	recorded := body("city", "city")
	diffs := Default().Diff(recorded, body("town", "city"))
	if len(diffs) != 2 || diffs[0].Path != "tools[0].functionDeclarations[get_weather].parametersJsonSchema.properties.city" ||
		diffs[1].Path != "tools[0].functionDeclarations[get_weather].parametersJsonSchema.properties.town" {
		t.Fatalf("differences %v, want get_weather's city removed and town added", diffs)
	}
	m, err := New("tools[*].functionDeclarations[get_weather].parametersJsonSchema")
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Diff(recorded, body("town", "city")); len(d) != 0 || m.Fingerprint(recorded) != m.Fingerprint(body("town", "city")) {
		t.Errorf("ignored by name, get_weather's schema still differs: %v", d)
	}
	if d := m.Diff(recorded, body("city", "town")); len(d) != 2 || m.Fingerprint(recorded) == m.Fingerprint(body("city", "town")) {
		t.Errorf("the ignore of get_weather hid get_local_time's change: %v", d)
	}
	for _, bad := range []string{"tools[0].functionDeclarations[9x]", "a[b c]"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) accepted a bad selector", bad)
		}
	}
}
