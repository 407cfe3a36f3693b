package conversation

import (
	"testing"

	"github.com/adkproxy/adkproxy/matcher"
)

// TestHashCanonicalIsHashOfTheCanonicalForms: keying a call straight from
// its parsed values gives the key the canonical strings would, so pooling
// the buffer changes no call's place.
func TestHashCanonicalIsHashOfTheCanonicalForms(t *testing.T) {
	v, ok := matcher.ParseJSON([]byte(`{"b":[1,2.50,"x\u00e9\n"],"a":{"z":null,"y":true}}`))
	if !ok {
		t.Fatal("not JSON")
	}
	for _, values := range [][]any{nil, {nil}, {v}, {v, nil, v}, {nil, "s", 1.5}} {
		parts := []string{"lead"}
		for _, x := range values {
			parts = append(parts, canonical(x))
		}
		if got, want := hashCanonical("lead", values...), hashOf(parts...); got != want {
			t.Errorf("hashCanonical(%v) = %s; hashOf the canonical forms = %s", values, got, want)
		}
	}
}
