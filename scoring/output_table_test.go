package scoring

import (
	"bytes"
	"strings"
	"testing"
)

func TestOutputTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, outSampleResult()); err != nil {
		t.Fatal(err)
	}
	want := `EVAL SET weather
CASE default  FAILED  (session default/1, 2 invocations)
  METRIC                     SCORE   THRESHOLD  STATUS
  tool_trajectory_avg_score  0.5     1          FAILED
      invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")
  response_match_score       0.8571  0.8        PASSED
  latency_ms                 1.455   ≤ 5000     PASSED
  safety_v1                  -       0.8        NOT_EVALUATED
      safety_v1 needs Vertex AI; not computable offline

CASE default/2  PASSED  (session default/2, 1 invocation)
  METRIC                     SCORE   THRESHOLD  STATUS
  tool_trajectory_avg_score  1       1          PASSED
  total_tokens               63      -          INFO

CASE other  FAILED  (session other/1, 1 invocation)
  case failed: 1 invocation recorded, 2 expected
  no metric was evaluated

UNPAIRED (not scored):
  eval case "missing": no recorded session of that name

FAILED: 1 of 3 cases passed (2 FAILED); 3 of 5 criteria passed (1 FAILED, 1 NOT_EVALUATED); 1 informational
`
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestOutputTablePassingAndEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, outPassingResult()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\nPASSED: 1 of 1 case passed; 1 of 1 criterion passed; 1 informational\n") {
		t.Errorf("passing table:\n%s", b.String())
	}
	b.Reset()
	if err := WriteTable(&b, &Result{Unpaired: []string{"session default/1: no eval case\nsecond line"}}); err != nil {
		t.Fatal(err)
	}
	want := "UNPAIRED (not scored):\n  session default/1: no eval case\n    second line\n\nNOT_EVALUATED: no case was scored\n"
	if b.String() != want {
		t.Errorf("empty table:\n%q\nwant\n%q", b.String(), want)
	}
}

// Names and reasons come from files people edit: nothing in them can break
// a line or send a terminal escape sequence.
func TestOutputTableSanitises(t *testing.T) {
	r := &Result{Cases: []CaseResult{{Case: &Case{ID: "a\nb\x1b[31m"}, Status: Failed,
		Metrics: []MetricResult{{Metric: "m\tx", Score: Float(0), Threshold: 1, Status: Failed, Reason: "line 1\nline 2\x07"}}}}}
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\t") || !strings.Contains(out, "CASE a b\uFFFD[31m  FAILED") ||
		!strings.Contains(out, "      line 1\n        line 2\uFFFD\n") || !strings.Contains(out, "  m x ") {
		t.Errorf("table:\n%s", out)
	}
}
