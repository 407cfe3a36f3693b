package judge

import (
	"strings"
	"testing"
)

func TestParseIsValid(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   *float64
	}{
		{`{"criteria": [], "is_valid": true}`, ptr(1)},
		{`{"is_valid": "valid"}`, ptr(1)},
		{"```json\n{\n  \"is_valid\": [\"TRUE\"]\n}\n```", ptr(1)},
		{`{"is_valid": false, "x": 1}`, ptr(0)},
		{`{"is_valid": "Invalid"}`, ptr(0)},
		{`{"is_valid": "partially_valid"}`, ptr(0)},
		{`{"is_valid": "almost"}`, ptr(0)},
		{`{"is_valid": "maybe"}`, nil},
		{`{"is_valid": true`, nil}, // no end: the regular expression needs , or a line break or }
		{`{"valid": true}`, nil},
		{``, nil},
		// The first value wins.
		{`{"is_valid": false}{"is_valid": true}`, ptr(0)},
	} {
		got, label := parseIsValid(tc.answer)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%q: %v (label %q), want %v", tc.answer, got, label, tc.want)
		}
	}
}

func TestFailedCriterion(t *testing.T) {
	answer := "Here:\n```json\n" + `{"criteria": [{"name": "A", "reasoning": "fine", "passes": true}, {"name": "B", "reasoning": "repeats a goal", "passes": "false"}], "is_valid": false}` + "\n```"
	if got := failedCriterion(answer); got != "B: repeats a goal" {
		t.Errorf("got %q", got)
	}
	if got := failedCriterion(`is_valid: false`); got != "" {
		t.Errorf("got %q for an answer that is not JSON", got)
	}
}

func TestRenderJinja(t *testing.T) {
	vars := map[string]any{"stop_signal": "</finished>"}
	for in, want := range map[string]string{
		"End with {{ stop_signal }}.":         "End with </finished>.",
		"End with {{stop_signal|upper}}.":     "End with </FINISHED>.",
		"{% if stop_signal %}stop{% endif %}": "stop",
		"No placeholder, {{ unknown }}here.":  "No placeholder, here.",
	} {
		got, err := renderJinja(in, vars, "persona \"P\", behaviors[0].name")
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`{% include "/etc/hostname" %}`, `{{ stop_signal `} {
		_, err := renderJinja(in, vars, "persona \"P\", behaviors[0].name")
		if err == nil || !strings.HasPrefix(err.Error(), `persona "P", behaviors[0].name: `) {
			t.Errorf("%q: error %v, want one naming the behavior", in, err)
		}
	}
}
