package judge

import (
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/adkversion"
)

func fp(f float64) *float64 { return &f }

func same(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

func TestParseValidityKeepsADKQuirks(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   *float64
		label  string
	}{
		{`{"reasoning": "ok", "is_the_agent_response_valid": "valid"}`, fp(1), "valid"},
		{`{"is_the_agent_response_valid": "invalid"}`, fp(0), "invalid"},
		{"{\n  \"is_the_agent_response_valid\": [\"valid\"]\n}", fp(1), "valid"},
		{`{"is_the_agent_response_valid": true}`, fp(1), "true"},
		{`{"is_the_agent_response_valid": "almost"}`, fp(0), "almost"},
		{`{"is_the_agent_response_valid": "partially"}`, fp(0), "partially"},
		// strip(r"\s,\}") strips the characters \ s , } — not white space.
		{`{"is_the_agent_response_valid": "valids"}`, fp(1), "valid"},
		{`{"is_the_agent_response_valid": "invalids,"}`, fp(0), "invalid"},
		// Case-sensitive, as in ADK.
		{`{"is_the_agent_response_valid": "Valid"}`, nil, "Valid"},
		{`{"is_the_agent_response_valid": "maybe"}`, nil, "maybe"},
		// The first match wins.
		{`{"is_the_agent_response_valid": "invalid"} {"is_the_agent_response_valid": "valid"}`, fp(0), "invalid"},
		// The fallback key: true or invalid is 0.0, anything else 1.0.
		{`{"is_the_agent_response_invalid": true}`, fp(0), "invalid"},
		{`{"is_the_agent_response_invalid": "nope"}`, fp(1), "valid"},
		// No closing delimiter after the value: no match.
		{`"is_the_agent_response_valid": "valid"`, nil, ""},
		{`I cannot decide.`, nil, ""},
	} {
		got, label := parseValidity(tc.answer)
		if !same(got, tc.want) || label != tc.label {
			t.Errorf("parseValidity(%q) = %v %q, want %v %q", tc.answer, show(got), label, show(tc.want), tc.label)
		}
	}
}

func TestParsePropertiesADKRules(t *testing.T) {
	answer := "Here is my review.\n" +
		"ID: r1\nProperty: The answer names the city.\nRationale: It says Paris.\nVerdict: yes\n\n" +
		"  Property: **The answer gives the “wind” speed.**\nRationale: No wind.\nVerdict: Not applicable\n" +
		"ID: r3\nProperty: Polite.\nRationale: Hard to say.\nVerdict: unknown\n" +
		"Property: Short.\nRationale: -\nVerdict: perhaps\n"
	got, ok := parseProperties(answer, adkversion.Version{})
	if !ok || len(got) != 4 {
		t.Fatalf("got %+v, %v", got, ok)
	}
	want := []struct {
		id    string
		score *float64
	}{{"r1", fp(1)}, {"", fp(0)}, {"r3", fp(0)}, {"", nil}}
	for i, w := range want {
		if got[i].ID != w.id || !same(got[i].Score, w.score) {
			t.Errorf("property %d: id %q score %v, want %q %v", i, got[i].ID, show(got[i].Score), w.id, show(w.score))
		}
	}
	if got[1].Rationale != "No wind." {
		t.Errorf("rationale %q", got[1].Rationale)
	}
	// Counts differ: the sample is discarded.
	if _, ok := parseProperties("Property: a\nRationale: b\n", adkversion.Version{}); ok {
		t.Error("a sample without its Verdict line was kept")
	}
}

func TestMatchPropertiesByIDThenNormalisedText(t *testing.T) {
	rubrics := []rubric{{ID: "city", Text: "The answer names the city."}, {ID: "wind", Text: `The answer gives the "wind" speed.`}, {ID: "temp", Text: "Gives the temperature"}}
	answer := "Property: ignored text\nID: city\nRationale: a\nVerdict: yes\n" + // the ID binds to the next Property
		"Property: > the ANSWER gives the “wind”   speed. *\nRationale: b\nVerdict: no\n" +
		"Property: Something invented\nRationale: c\nVerdict: yes\n"
	scores, discarded := matchProperties(answer, rubrics, adkversion.Version{})
	if discarded != "" {
		t.Fatal(discarded)
	}
	// "ID: city" precedes the second Property, so it binds there; the first
	// property's text matches no rubric; the third is invented.
	if !same(scores[0].Score, fp(0)) || scores[1].Score != nil || scores[2].Score != nil {
		t.Errorf("scores %v %v %v", show(scores[0].Score), show(scores[1].Score), show(scores[2].Score))
	}
	answer = "ID: nope\nProperty: > the ANSWER gives the “wind”   speed. *\nRationale: b\nVerdict: NO\n"
	scores, _ = matchProperties(answer, rubrics, adkversion.Version{})
	if !same(scores[1].Score, fp(0)) || scores[1].Rationale != "b" {
		t.Errorf("an unknown ID falls back to the normalised text: %+v", scores[1])
	}
}

// TestRubricAnswersFollowADKVersion (issue 40, found by TestOracleADK118):
// with the version 1.18 a rubric answer is read as ADK 1.18's parser reads
// it — the i-th Property, Rationale and Verdict paired whatever their
// numbers, "Property: " anywhere in a line, no ID lines, a text matched up
// to case and surrounding white space only — where by default a sample
// with a missing line is discarded and a property in bold matches.
func TestRubricAnswersFollowADKVersion(t *testing.T) {
	v118, err := adkversion.Parse("1.18")
	if err != nil {
		t.Fatal(err)
	}
	rubrics := []rubric{{ID: "city", Text: "The answer names the city."}, {ID: "temp", Text: "The answer gives a temperature."}}
	missing := "Property: The answer names the city.\nRationale: a\nVerdict: yes\n" +
		"Property: The answer gives a temperature.\nVerdict: no\n"
	scores, discarded := matchProperties(missing, rubrics, v118)
	if discarded != "" || !same(scores[0].Score, fp(1)) || scores[1].Score != nil {
		t.Errorf("1.18, a Rationale line missing: %v %v (%s), want the first paired and scored 1, the second dropped",
			show(scores[0].Score), show(scores[1].Score), discarded)
	}
	if _, discarded := matchProperties(missing, rubrics, adkversion.Version{}); discarded == "" {
		t.Error("latest, a Rationale line missing: the sample was kept")
	}
	bold := "Property: **The answer names the city.**\nRationale: a\nVerdict: yes\n" +
		"Verdict of the judge — Property:  the ANSWER gives a temperature.  \nRationale: b\nVerdict: no\n" +
		"ID: city\nProperty: invented\nRationale: c\nVerdict: no\n"
	scores, _ = matchProperties(bold, rubrics, v118)
	if scores[0].Score != nil || !same(scores[1].Score, fp(0)) {
		t.Errorf("1.18: %v %v, want the bold property dropped, the one within a line matched (up to case and white space), the ID ignored",
			show(scores[0].Score), show(scores[1].Score))
	}
}

func TestParseSentencesAndLabels(t *testing.T) {
	s := parseSentences("<sentence>It is 18°C.</sentence>\n<sentence>It is\nclear.</sentence><sentence></sentence>")
	if len(s) != 3 || s[1] != "It is\nclear." {
		t.Errorf("sentences %q", s)
	}
	if parseSentences("It is 18°C.") != nil {
		t.Error("sentences without tags")
	}
	answer := "sentence: It is 18°C.\nlabel:  Supported \nrationale: the tool\nsupporting_excerpt: 18°C\ncontradicting_excerpt: none\n" +
		"Sentence: It is clear.\nLABEL: contradictory\nrationale: it rains\nsupporting_excerpt: none\ncontradicting_excerpt: rain\n" +
		"sentence: Hello!\nlabel: not_applicable\nrationale: greeting\nsupporting_excerpt: none\ncontradicting_excerpt: none\n" +
		"sentence: Odd.\nlabel: maybe\nrationale: ?\nsupporting_excerpt: none\ncontradicting_excerpt: none"
	labels := parseLabels(answer)
	want := []*float64{fp(1), fp(0), fp(1), nil}
	if len(labels) != len(want) {
		t.Fatalf("labels %+v", labels)
	}
	for i, w := range want {
		if !same(labels[i].Score, w) {
			t.Errorf("label %d %q: %v, want %v", i, labels[i].Label, show(labels[i].Score), show(w))
		}
	}
	if labels[1].Sentence != "It is clear." || labels[1].Rationale != "it rains" {
		t.Errorf("block 2: %+v", labels[1])
	}
}

// The pooled-mean float cases of the reference: statistics.mean sums
// exactly and rounds once.
func TestMeanIsPythonStatisticsMean(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{0.1, 0.2, 0.4}, 0.23333333333333334},
		{[]float64{1, 0, 0, 1, 1}, 0.6},
		{[]float64{0.5, 1, 1.0 / 3}, 0.6111111111111112}, // Python 3.12 statistics.mean
		{[]float64{1e16, 1, -1e16}, 1.0 / 3},
	} {
		got, ok := mean(tc.xs)
		if !ok || got != tc.want {
			t.Errorf("mean(%v) = %.17g, want %.17g", tc.xs, got, tc.want)
		}
	}
	// The running sum would have given …336.
	xs := []float64{0.1, 0.2, 0.4}
	if naive := (xs[0] + xs[1] + xs[2]) / 3; naive != 0.23333333333333336 {
		t.Errorf("the running sum gives %.17g, the reference says …336", naive)
	}
	if _, ok := mean(nil); ok {
		t.Error("mean of nothing")
	}
	if m := meanOf([]*float64{nil, fp(1), nil, fp(0)}); m == nil || *m != 0.5 {
		t.Errorf("meanOf skips nil: %v", m)
	}
}

func TestMajorityTiesAreNegative(t *testing.T) {
	for _, tc := range []struct {
		votes []*float64
		want  *float64
	}{
		{[]*float64{fp(1), fp(1), fp(0), nil, fp(1)}, fp(1)},
		{[]*float64{fp(1), fp(0), fp(1), fp(0), nil}, fp(0)},
		{[]*float64{fp(1)}, fp(1)},
		{[]*float64{nil, nil}, nil},
		{[]*float64{fp(0), fp(0), fp(1)}, fp(0)},
	} {
		if got := majority(tc.votes); !same(got, tc.want) {
			t.Errorf("majority = %v, want %v", show(got), show(tc.want))
		}
	}
}
