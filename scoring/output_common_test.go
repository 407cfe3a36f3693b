package scoring

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// outSampleResult is a run with every kind of verdict the writers show: a
// failing trajectory with a per-invocation reason, a passing ROUGE score, a
// maximum, a metric that could not be evaluated, a case failed as a whole
// and an eval case that found no recording.
func outSampleResult() *Result {
	session := &Session{Cassette: "default", ID: 1}
	paris := Invocation{
		ID: "default/1/1", UserText: "What is the weather in Paris?",
		ToolCalls:             []cassettes.ToolCall{{ID: "call-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}},
		ToolResults:           []cassettes.ToolResult{{Name: "get_weather", Response: map[string]any{"city": "Paris", "temp_c": 18.0}}},
		IntermediateResponses: []AuthoredText{{Author: "agent", Text: "Let me check."}},
		FinalResponse:         "It is 18°C in Paris, clear.",
	}
	london := paris
	london.ID = "e-2"
	london.ToolCalls = []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": "London"}}}
	london.ToolResults, london.IntermediateResponses = nil, nil
	expected1 := paris
	expected1.ID, expected1.ToolResults, expected1.IntermediateResponses = "e-1", nil, nil
	caseOne := &Case{ID: "default", Session: session, Actual: []Invocation{paris, paris}, Expected: []Invocation{expected1, london}}
	reason := `invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")`
	return &Result{
		EvalSetID: "weather",
		Cases: []CaseResult{{
			Case:   caseOne,
			Status: Failed,
			Metrics: []MetricResult{
				{Metric: "tool_trajectory_avg_score", Score: Float(0.5), Threshold: 1, Status: Failed,
					PerInvocation: []InvocationScore{{Index: 0, Score: Float(1), Status: Passed},
						{Index: 1, Score: Float(0), Status: Failed, Reason: reason}}},
				{Metric: "response_match_score", Score: Float(0.8571428571428571), Threshold: 0.8, Status: Passed,
					PerInvocation: []InvocationScore{{Index: 0, Score: Float(1), Status: Passed}, {Index: 1, Score: Float(0.7142857142857143), Status: Failed,
						Reason: "invocation 2: ROUGE-1 0.7143 below 0.8"}}},
				{Metric: "latency_ms", Score: Float(1.455), Threshold: 5000, Max: true, Status: Passed, Criterion: map[string]any{"max": 5000.0}},
				{Metric: "safety_v1", Threshold: 0.8, Status: NotEvaluated, Reason: "safety_v1 needs Vertex AI; not computable offline",
					Details: map[string]any{"kept": "as is"}},
			},
		}, {
			Case:   &Case{ID: "default/2", Session: &Session{Cassette: "default", ID: 2}, Actual: []Invocation{paris}, Expected: []Invocation{expected1}, EvalSetID: "weather_extra"},
			Status: Passed,
			Metrics: []MetricResult{
				{Metric: "tool_trajectory_avg_score", Score: Float(1), Threshold: 1, Status: Passed,
					Criterion: map[string]any{"threshold": 1.0, "match_type": 0}},
				{Metric: "total_tokens", Score: Float(63), Status: NotEvaluated, Informational: true},
			},
		}, {
			Case:   &Case{ID: "other", Session: &Session{Cassette: "other", ID: 1}, Actual: []Invocation{paris}, Expected: []Invocation{expected1, london}, Failure: "1 invocation recorded, 2 expected"},
			Status: Failed,
		}},
		Unpaired: []string{`eval case "missing": no recorded session of that name`},
	}
}

func outPassingResult() *Result {
	r := outSampleResult()
	r.Cases = r.Cases[1:2]
	r.Unpaired = nil
	return r
}

func TestOutputResultStatus(t *testing.T) {
	if s := ResultStatus(outSampleResult()); s != Failed {
		t.Errorf("sample: %v", s)
	}
	if s := ResultStatus(outPassingResult()); s != Passed {
		t.Errorf("passing: %v", s)
	}
	if s := ResultStatus(&Result{}); s != NotEvaluated {
		t.Errorf("empty: %v", s)
	}
	// A NOT_EVALUATED criterion in a case ADK calls PASSED is skipped, as
	// ADK skips it, and listed; RequireAll makes it fail the run.
	r := outPassingResult()
	r.Cases[0].Metrics = append(r.Cases[0].Metrics, MetricResult{Metric: "safety_v1", Status: NotEvaluated, Reason: "needs Vertex AI"})
	if s := ResultStatus(r); s != Passed {
		t.Errorf("not evaluated criterion: %v", s)
	}
	if got := SkippedCriteria(r); len(got) != 1 || !strings.Contains(got[0], `safety_v1: needs Vertex AI`) {
		t.Errorf("SkippedCriteria = %q", got)
	}
	r.RequireAll = true
	if s := ResultStatus(r); s != NotEvaluated {
		t.Errorf("not evaluated criterion, RequireAll: %v", s)
	}
	// An informational metric decides nothing.
	r = outPassingResult()
	r.Cases[0].Metrics = append(r.Cases[0].Metrics, MetricResult{Metric: "cost_usd", Status: NotEvaluated, Informational: true})
	if s := ResultStatus(r); s != Passed {
		t.Errorf("informational metric: %v", s)
	}
}

func TestOutputNumbersAndReasons(t *testing.T) {
	for f, want := range map[float64]string{1: "1", 0.8: "0.8", 0.8571428571428571: "0.8571", 1.455: "1.455", 63: "63", 123456.789: "123456.789",
		0.00001: "0.00001", 0.0000532125: "0.00005321", 1.23456e-9: "0.000000001235", 1234.56789: "1234.5679", -0.25: "-0.25",
		0.99996: "0.99996", 1e-5 + 1: "1.00001", 2.0000000001: "2.0000000001", 0.33333333: "0.3333", 0: "0"} {
		if got := outNumber(f); got != want {
			t.Errorf("outNumber(%v) = %q, want %q", f, got, want)
		}
	}
	m := MetricResult{Metric: "x", Score: Float(0.2), Threshold: 0.5, Status: Failed}
	if got := strings.Join(outReasons(m), "|"); got != "score 0.2 below the threshold 0.5" {
		t.Errorf("reasons %q", got)
	}
	m = MetricResult{Metric: "x", Score: Float(9), Threshold: 5, Max: true, Status: Failed}
	if got := strings.Join(outReasons(m), "|"); got != "9 above the maximum 5" {
		t.Errorf("reasons %q", got)
	}
	m = MetricResult{Metric: "x", Status: NotEvaluated}
	if got := strings.Join(outReasons(m), "|"); got != "not evaluated (no score)" {
		t.Errorf("reasons %q", got)
	}
	m = MetricResult{Metric: "x", Score: Float(0.5), Threshold: 1, Status: Failed, Reason: "x 0.5 is below 1: invocation 2: a; invocation 3: b",
		PerInvocation: []InvocationScore{{Index: 1, Status: Failed, Reason: "invocation 2: a"}, {Index: 2, Status: Failed, Reason: "invocation 3: b"},
			{Index: 3, Status: Failed, Reason: "invocation 4: c"}, {Index: 4, Status: NotEvaluated, Reason: "invocation 4: c"}}}
	if got := strings.Join(outReasons(m), "|"); got != "x 0.5 is below 1: invocation 2: a; invocation 3: b|invocation 4: c" {
		t.Errorf("reasons told twice: %q", got)
	}
	m = MetricResult{Metric: "x", Score: Float(1), Status: Passed, Reason: "ignored"}
	if got := outReasons(m); got != nil {
		t.Errorf("passed metric has reasons %q", got)
	}
}
