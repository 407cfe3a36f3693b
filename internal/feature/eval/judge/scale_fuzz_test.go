package judge

import "testing"

func TestParseScale(t *testing.T) {
	for _, tc := range []struct {
		answer string
		score  float64 // -1: none
		why    string
	}{
		{`{"score": 4, "rationale": "ok"}`, 4, "ok"},
		{"```json\n{\"score\": \"3.5\", \"rationale\": \"close\"}\n```", 3.5, "close"},
		{"Score: 2\nRationale: no state is kept.", 2, "no state is kept."},
		{`{"score": 6, "rationale": "too high"}`, -1, "too high"},
		{`{"score": -1}`, -1, ""},
		{`I cannot tell.`, -1, ""},
		{`{"score": null, "rationale": "n/a"} score: 1`, 1, "n/a"},
	} {
		score, why := parseScale(tc.answer, 0, 5)
		if (score == nil) != (tc.score < 0) || score != nil && *score != tc.score || why != tc.why {
			t.Errorf("%q: %v %q, want %v %q", tc.answer, score, why, tc.score, tc.why)
		}
	}
}

// Whatever the judge answers, a score is within the scale or there is none.
func FuzzParseScale(f *testing.F) {
	for _, s := range []string{`{"score": 4, "rationale": "ok"}`, "Score: 2\nRationale: x", `{"score": "1e400"}`, `score=NaN`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		if score, _ := parseScale(answer, 0, 5); score != nil && !(*score >= 0 && *score <= 5) {
			t.Errorf("%q: score %v outside 0..5", answer, *score)
		}
	})
}
