package matcher

import (
	"strings"
	"testing"
)

// Numbers inside a quoted value read as the client wrote them, not in the
// canonical form matching uses (2e1 for 20); equal numbers still match.
func TestDifferencesShowNumbersAsSent(t *testing.T) {
	got := diffBodies(t, `{"contents":[{"role":"user","parts":[{"text":"roll"}]}]}`,
		`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"roll_die","args":{"sides":20,"p":0.50,"n":1.0e2}}}]}],"generationConfig":{"temperature":0.5,"topK":40}}`)
	joined := strings.Join(got, "\n")
	for _, s := range []string{`"sides":20`, `"p":0.50`, `"n":1.0e2`, `generationConfig: added {"temperature":0.5,"topK":40}`} {
		if !strings.Contains(joined, s) {
			t.Errorf("diffs lack %s:\n%s", s, joined)
		}
	}
	if strings.Contains(joined, "e1") || strings.Contains(joined, "e-1") {
		t.Errorf("canonical numbers shown:\n%s", joined)
	}
	if same := diffBodies(t, `{"generationConfig":{"topK":40}}`, `{"generationConfig":{"topK":4.0e1}}`); len(same) != 0 {
		t.Errorf("equal numbers differ: %v", same)
	}
}
