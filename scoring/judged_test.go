package scoring

import (
	"context"
	"strings"
	"testing"
)

func TestEvalSetKeepsInvocationRubrics(t *testing.T) {
	exp, err := parseEvalSet("r.evalset.json", []byte(`{"eval_set_id": "r", "eval_cases": [{"eval_id": "c", "conversation": [
	  {"user_content": {"parts": [{"text": "hi"}]}, "rubrics": [{"rubricId": "polite", "rubricContent": {"textProperty": "Is polite."}}]},
	  {"user_content": {"parts": [{"text": "bye"}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	inv := exp.Cases[0].Invocations
	if got := string(inv[0].Rubrics); got != `[{"rubricContent":{"textProperty":"Is polite."},"rubricId":"polite"}]` || inv[1].Rubrics != nil {
		t.Errorf("rubrics %s / %s", inv[0].Rubrics, inv[1].Rubrics)
	}
	_, err = parseEvalSet("r.evalset.json", []byte(`{"eval_set_id": "r", "eval_cases": [{"eval_id": "c", "conversation": [
	  {"user_content": {"parts": [{"text": "hi"}]}, "rubrics": {"polite": 1}}]}]}`))
	if err == nil || !strings.Contains(err.Error(), "r.evalset.json: eval_cases[0].conversation[0].rubrics") {
		t.Errorf("rubrics that are not a list: %v", err)
	}
}

// Without a judge the LLM-judged metrics say how to get one; a case whose
// invocation counts differ is not sent to the judge at all.
func TestJudgedMetricsWithoutJudgeOrComparison(t *testing.T) {
	cfg, err := ParseConfig("c.json", []byte(`{"criteria": {"hallucinations_v1": 0.5, "final_response_match_v2": 0.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Case{ID: "c", Actual: []Invocation{{UserText: "hi", FinalResponse: "hello"}}}
	res := Evaluate(context.Background(), cfg, []Case{c})
	for _, m := range res.Cases[0].Metrics {
		if m.Status != NotEvaluated || !strings.Contains(m.Reason, "--judge-cassettes") {
			t.Errorf("%s: %v %q", m.Metric, m.Status, m.Reason)
		}
	}
	cfg.Judge = failingJudge{t}
	c.Failure = "2 invocations recorded, 1 expected"
	res = Evaluate(context.Background(), cfg, []Case{c})
	for _, m := range res.Cases[0].Metrics {
		if m.Status != NotEvaluated || m.Reason != "not compared: 2 invocations recorded, 1 expected" {
			t.Errorf("%s: %v %q", m.Metric, m.Status, m.Reason)
		}
	}
	c.Failure = ""
	res = Evaluate(context.Background(), cfg, []Case{c})
	if m := res.Cases[0].Metrics[1]; m.Status != NotEvaluated || !strings.Contains(m.Reason, "compares with the expected final responses") {
		t.Errorf("final_response_match_v2 without expectations: %v %q", m.Status, m.Reason)
	}
}

// failingJudge fails the test if it is ever asked.
type failingJudge struct{ t *testing.T }

func (f failingJudge) Evaluate(_ context.Context, cr *Criterion, c *Case, _ *MetricResult) {
	if cr.Metric != HallucinationsV1 {
		f.t.Errorf("the judge was asked %s on case %s", cr.Metric, c.ID)
	}
}

func TestCostOfUsesThePriceTable(t *testing.T) {
	cfg := DefaultConfig()
	got, ok := cfg.CostOf("gemini-2.5-flash", Usage{Prompt: 1_000_000, Candidates: 100_000})
	if !ok || got != 0.30+0.25 {
		t.Errorf("cost %v %v, want 0.55", got, ok)
	}
	if _, ok := cfg.CostOf("no-such-model", Usage{Prompt: 1}); ok {
		t.Error("a model without a price was priced")
	}
}

// The table shows a judge's notes below its metric whatever the status,
// but never a note its reasons already tell.
func TestTableShowsJudgeNotesOnce(t *testing.T) {
	c := &Case{ID: "c", Actual: []Invocation{{}, {}}}
	res := &Result{Cases: []CaseResult{{Case: c, Status: Failed, Metrics: []MetricResult{
		{Metric: FinalResponseMatchV2, Score: Float(1), Threshold: 0.5, Status: Passed, Notes: []string{"invocation 1: valid (5 of 5 samples): fine"}},
		{Metric: HallucinationsV1, Score: Float(0), Threshold: 0.5, Status: Failed,
			Reason:        "hallucinations_v1 0 is below the threshold 0.5: invocation 2: 0 of 1 sentences supported",
			PerInvocation: []InvocationScore{{Index: 1, Score: Float(0), Status: Failed, Reason: "invocation 2: 0 of 1 sentences supported"}},
			Notes:         []string{"invocation 1: no sentence", "invocation 2: 0 of 1 sentences supported"}},
	}}}}
	var b strings.Builder
	if err := WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for want, n := range map[string]int{"invocation 1: valid (5 of 5 samples): fine": 1, "invocation 2: 0 of 1 sentences supported": 1, "invocation 1: no sentence\n": 1} {
		if got := strings.Count(out, want); got != n {
			t.Errorf("%q appears %d times, want %d:\n%s", want, got, n, out)
		}
	}
}
