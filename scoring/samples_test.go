package scoring

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// Five runs of one case, passing in runs 1, 2 and 4: the pooled case and
// its metric carry pass@1, pass^5, the flip rate (3 flips in 4 pairs) and the Wilson interval,
// computed here by hand, into the JSON result.
func TestPooledRunsReportSampleStatistics(t *testing.T) {
	pass := []bool{true, true, false, true, false}
	var runs []CaseResult
	for k, p := range pass {
		st, score := Failed, 0.0
		if p {
			st, score = Passed, 1.0
		}
		sc := score
		runs = append(runs, CaseResult{Case: &Case{ID: "c", Run: k + 1, Runs: 5},
			Metrics: []MetricResult{{Metric: "m", Score: &sc, Status: st}}, Status: st})
	}
	crit := []Criterion{{Metric: "m"}}
	pooled := poolRuns(crit, runs)
	if len(pooled) != 1 {
		t.Fatalf("%d results, want 1", len(pooled))
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, &Result{EvalSetID: "s", Cases: pooled}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Details struct {
				Samples map[string]any `json:"samples"`
			} `json:"details"`
			Metrics []struct {
				Details struct {
					Samples struct {
						Pass  map[string]any `json:"pass"`
						Score map[string]any `json:"score"`
					} `json:"samples"`
				} `json:"details"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	z := 1.959963984540054
	den := 1 + z*z/5
	lo := (0.6+z*z/10)/den - z*math.Sqrt(0.24/5+z*z/100)/den
	hi := (0.6+z*z/10)/den + z*math.Sqrt(0.24/5+z*z/100)/den
	for where, s := range map[string]map[string]any{"case": doc.Cases[0].Details.Samples, "metric": doc.Cases[0].Metrics[0].Details.Samples.Pass} {
		want := map[string]float64{"n": 5, "passes": 3, "k": 5, "pass_at_1": 0.6, "pass_at_k": 1, "pass_hat_k": 0, "flip_rate": 0.75, "interval_low": lo, "interval_high": hi}
		for k, w := range want {
			got, ok := s[k].(float64)
			if !ok || math.Abs(got-w) > 1e-9 {
				t.Errorf("%s samples %s = %v, want %v", where, k, s[k], w)
			}
		}
		if s["flaky"] != true {
			t.Errorf("%s: a case that passed and failed is not flaky", where)
		}
	}
	if m := doc.Cases[0].Metrics[0].Details.Samples.Score; m["mean"] != 0.6 || m["bootstrap_seed"] != 41.0 {
		t.Errorf("score samples = %v", m)
	}
}
