package matcher

import (
	"strings"
	"testing"
)

func TestWordDiff(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"You are a weather assistant. Use get_weather for every city.",
			"You are a travel assistant. Use get_weather for every city.",
			"You are a [-weather-] {+travel+} assistant. Use get_weather for …"},
		{"one two three", "one two three four", "one two three {+four+}"},
		{"alpha beta gamma", "alpha gamma", "alpha [-beta-] gamma"},
		{"a  b\nc", "a b c", "(only white space differs)"},
		{"w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 x w13 w14 w15 w16 w17 w18", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 y w13 w14 w15 w16 w17 w18",
			"… w9 w10 w11 w12 [-x-] {+y+} w13 w14 w15 w16 …"},
	}
	for _, c := range cases {
		if got := WordDiff(c.a, c.b); got != trimEllipsisSpace(c.want) {
			t.Errorf("WordDiff(%q, %q)\n got %q\nwant %q", c.a, c.b, got, trimEllipsisSpace(c.want))
		}
	}
}

func trimEllipsisSpace(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

func TestLongTextChangesGetWordDiff(t *testing.T) {
	rec := map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "You are a weather assistant. Use get_weather for every city you are asked about."}}}}
	got := map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "You are a travel assistant. Use get_weather for every city you are asked about."}}}}
	diffs := DiffJSON("", rec, got)
	if len(diffs) != 1 {
		t.Fatalf("diffs %v", diffs)
	}
	want := "systemInstruction.parts[0].text: changed: You are a [-weather-] {+travel+} assistant. Use get_weather for …"
	if diffs[0].String() != want {
		t.Fatalf("got  %s\nwant %s", diffs[0], want)
	}
}

// TestHugeTextChangeIsNotEchoed: a text that grew by megabytes is shown
// cut, with its size, not whole.
func TestHugeTextChangeIsNotEchoed(t *testing.T) {
	huge := strings.Repeat("q", 2<<20)
	diffs := DiffJSON("", map[string]any{"text": "hello there"}, map[string]any{"text": huge})
	if len(diffs) != 1 {
		t.Fatalf("diffs %v", diffs)
	}
	if s := diffs[0].String(); len(s) > 8<<10 || !strings.Contains(s, "bytes)") {
		t.Fatalf("a %d-byte change is shown in %d bytes: %.200s…", len(huge), len(s), s)
	}
}
