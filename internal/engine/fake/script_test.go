package fake

import (
	"strings"
	"testing"
)

func TestParseScript(t *testing.T) {
	s, err := ParseScript("s.yaml", []byte(`
turns:
  - user: Hi
    model:
      - call: f
        args: {a: [1, {b: c}]}
      - parts: [{text: one}, {call: g}]
      - error: {code: 503}
      - fault: reset after 2 events
  - model:
      - text: ""
`))
	if err != nil {
		t.Fatal(err)
	}
	items := s.Turns[0].Model
	if *s.Turns[0].User != "Hi" || s.Turns[1].User != nil || len(items) != 4 || items[0].Parts[0].Call != "f" || len(items[1].Parts) != 2 ||
		items[2].Error.Status != "UNAVAILABLE" || items[3].Fault.Events != 2 || items[3].Line != 9 || items[0].Line != 5 || s.Turns[1].Model[0].Parts[0].Text != "" {
		t.Errorf("parsed %+v", s)
	}
}

func TestParseScriptErrors(t *testing.T) {
	for body, want := range map[string]string{
		"":                                     "s.yaml: empty",
		"turns: []\n":                          "s.yaml: no turns",
		"turn:\n  - model: [{text: a}]\n":      "unknown key \"turn\"",
		"turns:\n  - user: a\n":                "s.yaml:2: turns[0] has no \"model:\" items",
		"turns:\n  - model:\n      - txt: a\n": "s.yaml:3: turns[0].model[0]: line 3: unknown key \"txt\"",
		"turns:\n  - model:\n      - {text: a, call: f}\n":             "it has both text and call",
		"turns:\n  - model:\n      - {text: a, fault: 429}\n":          "it has 2 of text/call, parts, error and fault",
		"turns:\n  - model:\n      - {}\n":                             "it has 0 of text/call",
		"turns:\n  - model:\n      - fault: 200\n":                     `fault "200": status 200 is not an error status`,
		"turns:\n  - model:\n      - error: {code: 200}\n":             "error code 200 is not an HTTP error status",
		"turns:\n  - model:\n      - {text: a, args: {x: 1}}\n":        "args without call",
		"turns:\n  - model:\n      - {call: f, args: {1: 2}}\n":        "", // number keys are strings in JSON: fine
		"turns:\n  - model:\n      - {call: f, args: {a: {[1]: 2}}}\n": "invalid map key",
		"turns:\n  - model:\n      - parts: []\n":                      "parts is empty",
		"turns:\n  - model:\n      - parts: [{error: {code: 500}}]\n":  `parts[0]: line 3: unknown key "error"`,
		"turns:\n  - model:\n      - parts: [{args: {}}]\n":            "args without call",
		"turns: {a: 1}\n": "s.yaml",
	} {
		_, err := ParseScript("s.yaml", []byte(body))
		if want == "" {
			if err != nil {
				t.Errorf("ParseScript(%q): %v", body, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScript(%q): %v; want %q", body, err, want)
		}
	}
}

// FuzzParseScript: no script panics; every item of a script that parses
// is exactly one kind, and its call arguments are JSON.
func FuzzParseScript(f *testing.F) {
	f.Add([]byte("turns:\n  - user: a\n    model:\n      - call: f\n        args: {city: Paris}\n      - text: b\n"))
	f.Add([]byte("turns:\n  - model:\n      - error: {code: 503}\n      - fault: 429\n      - parts: [{text: a}, {call: g}]\n"))
	f.Add([]byte("turns: [{model: [{text: x}]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript("f.yaml", data)
		if err != nil {
			return
		}
		for _, turn := range s.Turns {
			if len(turn.Model) == 0 {
				t.Fatal("a turn with no items")
			}
			for _, it := range turn.Model {
				kinds := 0
				if it.Parts != nil {
					kinds++
				}
				if it.Error != nil {
					kinds++
				}
				if it.Fault != nil {
					kinds++
				}
				if kinds != 1 {
					t.Fatalf("item %+v is %d kinds", it, kinds)
				}
				for _, p := range it.Parts {
					if p.Call != "" {
						chunks(false, it.Parts, "m", 1, "id") // marshals the args
					}
				}
			}
		}
	})
}
