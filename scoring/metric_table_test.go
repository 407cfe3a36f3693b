package scoring

import (
	"os"
	"strings"
	"testing"
)

// Every row of the metric table is complete, named once, documented in
// docs/scoring.md, and configurable in its own section only.
func TestMetricTableRows(t *testing.T) {
	doc, err := os.ReadFile("../docs/scoring.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range metricTable {
		if d.name == "" || d.kind == 0 || d.doc == "" || d.compute == nil {
			t.Errorf("%q: row incomplete (kind %d, doc %q, compute set %v)", d.name, d.kind, d.doc, d.compute != nil)
		}
		if seen[d.name] {
			t.Errorf("%s: two rows", d.name)
		}
		seen[d.name] = true
		if !strings.Contains(string(doc), "`"+d.name+"`") {
			t.Errorf("%s: docs/scoring.md does not name it", d.name)
		}
		if _, ok := adkNotComputed[d.name]; ok {
			t.Errorf("%s: both computed and listed as not computed", d.name)
		}
		adkCfg := `{"criteria": {"` + d.name + `": 0.5}}`
		ours := `{"adkproxy": {"criteria": {"` + d.name + `": {"max": 1}}}}`
		_, errADK := ParseConfig("c.json", []byte(adkCfg))
		_, errOurs := ParseConfig("c.json", []byte(ours))
		// adkproxy's metrics may refuse {"max": 1} for their own reasons
		// (single_tool_use needs a tool), never as not theirs.
		refused := func(err error) bool {
			return err != nil && (strings.Contains(err.Error(), "unknown metric") || strings.Contains(err.Error(), "is ADK's metric") || strings.Contains(err.Error(), "is adkproxy's metric"))
		}
		if d.adk && (errADK != nil || !refused(errOurs)) || !d.adk && (refused(errOurs) || !refused(errADK)) {
			t.Errorf("%s (adk %v): under criteria: %v; under adkproxy.criteria: %v", d.name, d.adk, errADK, errOurs)
		}
	}
	if got, want := strings.Join(RunMetrics(), ","), "prompt_tokens,candidates_tokens,cached_tokens,thoughts_tokens,tool_use_tokens,total_tokens,cost_usd,latency_call_ms,latency_invocation_ms,cache_hit_rate,thinking_ratio,tool_calls,unique_tools,tool_error_rate,agent_handoffs,context_saturation,output_density,tool_success_rate,reasoning_ratio,grounding_utilization,sandbox_usage,tool_latency_ms"; got != want {
		t.Errorf("RunMetrics() = %s, want the report order %s", got, want)
	}
}
