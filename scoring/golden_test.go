package scoring

import (
	"bytes"
	"strings"
	"testing"
)

// With a golden run as the expectations, each run metric shows the golden
// run's value and the change: total_tokens 2057 (golden 1662, +23.8 %).
func TestRunMetricsShowTheGoldenValue(t *testing.T) {
	cfg, err := ParseConfig("eval_config.json", []byte(`{"criteria": {}, "adkproxy": {"criteria": {"total_tokens": {}, "prompt_tokens": {"max": 5000}, "tool_calls": {}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	inv := func(total, prompt int64) Invocation {
		return Invocation{Steps: []Step{{Usage: Usage{Total: total / 2, Prompt: prompt}}, {Usage: Usage{Total: total - total/2}}}}
	}
	golden := Case{ID: "golden", Actual: []Invocation{inv(2057, 100)}, Expected: []Invocation{inv(1662, 100)}}
	eval := Case{ID: "evalset", Actual: []Invocation{inv(2057, 100)}, Expected: []Invocation{{UserText: "hi"}}} // an eval set has no steps
	res := Evaluate(t.Context(), cfg, []Case{golden, eval})
	var out bytes.Buffer
	if err := WriteTable(&out, res); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, want := range []string{"total_tokens   2057 (golden 1662, +23.8 %)", "prompt_tokens  100 (golden 100, +0.0 %)", "tool_calls     0 (golden 0)"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Count(table, "(golden ") != 3 {
		t.Errorf("golden values shown for a case paired with an eval set:\n%s", table)
	}
	var total *MetricResult
	for i, m := range res.Cases[0].Metrics {
		if m.Metric == metricTotalTokens {
			total = &res.Cases[0].Metrics[i]
		}
	}
	if total == nil || total.Details["golden"] != 1662.0 {
		t.Errorf("details %+v", total)
	}
}
