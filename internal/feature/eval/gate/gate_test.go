package gate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/samplestat"
)

// result is an EvalSetResult whose cases have the given passes of n
// samples ("id": {passes, n}); n == 1 writes no samples, only the status.
func result(cases ...any) []byte {
	var parts []string
	for i := 0; i < len(cases); i += 3 {
		id, passes, n := cases[i].(string), cases[i+1].(int), cases[i+2].(int)
		status := 2
		if passes == n {
			status = 1
		}
		details := ""
		if n > 1 {
			details = fmt.Sprintf(`, "details": {"samples": {"n": %d, "passes": %d, "flaky": %t}}`, n, passes, passes > 0 && passes < n)
		}
		parts = append(parts, fmt.Sprintf(`{"eval_set_id": "s", "eval_id": %q, "final_eval_status": %d%s}`, id, status, details))
	}
	return []byte(`{"eval_set_id": "s", "eval_case_results": [` + strings.Join(parts, ",") + `]}`)
}

// wilson and newcombe are the formulas of docs/variance.md, written out
// again here so the test does not take the package's word for them.
func wilson(c, n float64) (float64, float64) {
	z := 1.959963984540054
	p := c / n
	den := 1 + z*z/n
	mid := (p + z*z/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / den
	return mid - half, mid + half
}

func newcombe(c1, n1, c0, n0 float64) (float64, float64) {
	l1, u1 := wilson(c1, n1)
	l0, u0 := wilson(c0, n0)
	p1, p0 := c1/n1, c0/n0
	return p1 - p0 - math.Sqrt((p1-l1)*(p1-l1)+(u0-p0)*(u0-p0)), p1 - p0 + math.Sqrt((u1-p1)*(u1-p1)+(p0-l0)*(p0-l0))
}

func TestGateVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name                string
		baseline, candidate []byte
		margin              float64
		want                samplestat.Verdict
		c1, n1, c0, n0      float64
	}{
		// 20 of 20 passed before, 2 of 20 now: surely worse.
		{"fail", result("a", 20, 20), result("a", 2, 20), 0, samplestat.Fail, 2, 20, 20, 20},
		// 5 of 5 both times: the interval [-0.43, 0.43] holds 0, so at
		// margin 0 the samples cannot tell...
		{"inconclusive", result("a", 5, 5), result("a", 5, 5), 0, samplestat.Inconclusive, 5, 5, 5, 5},
		// ...and with a margin of 0.5 they can.
		{"pass with a margin", result("a", 5, 5), result("a", 5, 5), 0.5, samplestat.Pass, 5, 5, 5, 5},
		// 2 of 20 before, 20 of 20 now: surely not worse.
		{"pass", result("a", 2, 20), result("a", 20, 20), 0, samplestat.Pass, 20, 20, 2, 20},
	} {
		r, err := Compare(tc.baseline, tc.candidate, tc.margin)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		lo, hi := newcombe(tc.c1, tc.n1, tc.c0, tc.n0)
		c := r.Cases[0]
		if math.Abs(c.Low-lo) > 1e-12 || math.Abs(c.High-hi) > 1e-12 {
			t.Errorf("%s: interval [%v, %v], want [%v, %v]", tc.name, c.Low, c.High, lo, hi)
		}
		if c.Verdict != tc.want || r.Suite.Verdict != tc.want || r.Verdict() != tc.want {
			t.Errorf("%s: case %s, suite %s, run %s; want %s", tc.name, c.Verdict, r.Suite.Verdict, r.Verdict(), tc.want)
		}
	}
}

// The suite pools every case's samples; one case surely worse fails the
// run though the suite alone would not; flaky and one-sided cases are
// listed.
func TestGateSuiteAndLists(t *testing.T) {
	base := result("a", 10, 10, "b", 10, 10, "c", 10, 10, "gone", 1, 1)
	cand := result("a", 10, 10, "b", 10, 10, "c", 0, 10, "new", 3, 5)
	r, err := Compare(base, cand, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Cases[2].Verdict != samplestat.Fail || r.Verdict() != samplestat.Fail {
		t.Errorf("case c %s, run %s; want FAIL", r.Cases[2].Verdict, r.Verdict())
	}
	if s := r.Suite; s.Baseline.N != 30 || s.Baseline.Passes != 30 || s.Candidate.N != 30 || s.Candidate.Passes != 20 {
		t.Errorf("suite pooled %+v", s)
	}
	if fmt.Sprint(r.OnlyBaseline, r.OnlyCandidate, r.Flaky) != "[s/gone] [s/new] [s/new]" {
		t.Errorf("lists: %v %v %v", r.OnlyBaseline, r.OnlyCandidate, r.Flaky)
	}
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{"FAIL         s/c  10/10 → 0/10", "SUITE", "not gated, no baseline: s/new", "missing from this run: s/gone", "FLAKY", "GATE FAIL"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// ADK writes one case result per run of num_runs: they are summed.
func TestGateSumsRepeatedResults(t *testing.T) {
	r, err := Compare(result("a", 1, 1, "a", 0, 1, "a", 1, 1), result("a", 1, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Cases[0].Baseline; b.N != 3 || b.Passes != 2 || !b.Flaky {
		t.Errorf("baseline %+v, want 2 of 3, flaky", b)
	}
}

func TestGateRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		base, cand []byte
		margin     float64
		want       string
	}{
		{result("a", 1, 1), result("a", 1, 1), 1, "margin 1"},
		{result("a", 1, 1), result("a", 1, 1), -0.1, "margin -0.1"},
		{[]byte(`{"x": 1}`), result("a", 1, 1), 0, "the baseline: no eval_case_results"},
		{[]byte(`[1,`), result("a", 1, 1), 0, "the baseline: not an EvalSetResult"},
		{result("a", 1, 1), result("b", 1, 1), 0, "no eval case is in both"},
		{[]byte(`{"eval_case_results": [{"eval_id": "a", "details": {"samples": {"n": 2, "passes": 3}}}]}`), result("a", 1, 1), 0, "3 passes of 2"},
	} {
		if _, err := Compare(tc.base, tc.cand, tc.margin); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
}

// A result ADK up to v1.21 wrote as a JSON string is read too.
func TestGateReadsAStringDocument(t *testing.T) {
	doc := result("a", 1, 1)
	quoted := []byte(fmt.Sprintf("%q", doc))
	if _, err := Compare(quoted, doc, 0); err != nil {
		t.Fatal(err)
	}
}

func FuzzCompare(f *testing.F) {
	f.Add(result("a", 3, 5), result("a", 5, 5))
	f.Add([]byte(`"{}"`), []byte(`{"eval_case_results": []}`))
	f.Fuzz(func(t *testing.T, base, cand []byte) {
		r, err := Compare(base, cand, 0.05)
		if err != nil {
			return
		}
		for _, c := range append(r.Cases, r.Suite) {
			if c.Low > c.High || math.IsNaN(c.Low) {
				t.Fatalf("interval [%v, %v]", c.Low, c.High)
			}
		}
	})
}
