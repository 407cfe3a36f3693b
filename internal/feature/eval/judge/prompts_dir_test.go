package judge

import (
	"strings"
	"testing"
)

// An ADK-style template parses or is refused, never panics; what parses
// renders its literal text with the braces unescaped and each variable in
// its place.
func FuzzParseADKTemplate(f *testing.F) {
	for _, s := range []string{"{prompt} vs {golden_response}", "{{\"a\": 1}}", "{", "}", "{nope}", "a{{b}}c{response}", ""} {
		f.Add(s)
	}
	vars := adkPromptVars["final_response_match_v2"]
	f.Fuzz(func(t *testing.T, s string) {
		pieces, err := parseADKTemplate(s, vars)
		if err != nil {
			return
		}
		o := &promptOverride{adk: pieces}
		got := o.renderADK(map[string]string{"prompt": "P", "response": "R", "golden_response": "G"})
		want := strings.NewReplacer("{{", "{", "}}", "}", "{prompt}", "P", "{response}", "R", "{golden_response}", "G").Replace(s)
		if got != want {
			t.Errorf("%q renders %q, want %q", s, got, want)
		}
	})
}
