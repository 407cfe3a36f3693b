// The run metrics: tokens, cost, latency, cache and thinking ratios and
// tool use, computed from the recorded model calls.

package scoring

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// runMetric computes a run metric (see RunMetrics) from c's recorded
// model calls.
func runMetric(cfg *Config, cr *Criterion, c *Case, m *MetricResult) {
	if len(c.Actual) == 0 {
		m.Reason = "no invocations"
		return
	}
	steps := 0
	for _, inv := range c.Actual {
		steps += len(inv.Steps)
	}
	if steps == 0 {
		m.Reason = "no recorded model calls: run metrics need a recording, not eval set invocations"
		return
	}
	d, ok := metrics[cr.Metric]
	if !ok || d.kind != run {
		m.Reason = "unknown metric " + cr.Metric
		return
	}
	m.PerInvocation = make([]InvocationScore, 0, len(c.Actual))
	d.compute(cfg, cr, c, m)
}

// perInvocation scores each actual invocation with f, in order.
func perInvocation(c *Case, m *MetricResult, f func(i int, inv *Invocation) *float64) {
	for i := range c.Actual {
		m.PerInvocation = append(m.PerInvocation, InvocationScore{Index: i, Score: f(i, &c.Actual[i])})
	}
}

// tokenSum is a metric summing one usage count over the model calls.
func tokenSum(field func(Usage) int64) func(*Config, *Criterion, *Case, *MetricResult) {
	return func(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
		var total int64
		perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
			var n int64
			for _, s := range inv.Steps {
				n += field(s.Usage)
			}
			total += n
			return Float(float64(n))
		})
		m.Score = Float(float64(total))
	}
}

// tokenRatio is a metric dividing two sums of usage counts; noDenominator
// is the reason when the divisor is 0.
func tokenRatio(num, den func(Usage) int64, noDenominator string) func(*Config, *Criterion, *Case, *MetricResult) {
	return func(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
		var tn, td int64
		perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
			var n, d int64
			for _, s := range inv.Steps {
				n += num(s.Usage)
				d += den(s.Usage)
			}
			tn, td = tn+n, td+d
			return ratio(n, d)
		})
		m.Score = ratio(tn, td)
		if m.Score == nil {
			m.Reason = noDenominator
		}
	}
}

func latencyCall(_ *Config, cr *Criterion, c *Case, m *MetricResult) {
	var all []float64
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		var ms []float64
		for _, s := range inv.Steps {
			ms = append(ms, millis(s.Latency))
		}
		all = append(all, ms...)
		return statOf(cr.Stat, ms)
	})
	m.Score = statOf(cr.Stat, all)
	m.Details = statDetails(cr.Stat, all, "model calls")
}

func latencyInvocation(_ *Config, cr *Criterion, c *Case, m *MetricResult) {
	var all []float64
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		var d time.Duration
		for _, s := range inv.Steps {
			d += s.Latency
		}
		all = append(all, millis(d))
		return Float(millis(d))
	})
	m.Score = statOf(cr.Stat, all)
	m.Details = statDetails(cr.Stat, all, "invocations")
}

// countCalls scores each invocation by its tool calls (distinct names with
// unique) and returns the calls per tool name and their total.
func countCalls(c *Case, m *MetricResult, unique bool) (map[string]int, int) {
	counts := map[string]int{}
	var total int
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		local := map[string]bool{}
		n := 0
		for _, call := range inv.ToolCalls {
			counts[call.Name]++
			local[call.Name] = true
			n++
		}
		total += n
		if unique {
			return Float(float64(len(local)))
		}
		return Float(float64(n))
	})
	return counts, total
}

func toolCallCount(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	counts, total := countCalls(c, m, false)
	m.Score = Float(float64(total))
	m.Details = map[string]any{"calls_per_tool": counts}
}

func uniqueToolCount(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	counts, _ := countCalls(c, m, true)
	m.Score = Float(float64(len(counts)))
	m.Details = map[string]any{"calls_per_tool": counts}
}

func toolErrorRate(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	var errs, results int
	var failing []string
	perInvocation(c, m, func(i int, inv *Invocation) *float64 {
		e := 0
		for _, r := range inv.ToolResults {
			if toolFailed(r) {
				e++
				failing = append(failing, r.Name)
			}
		}
		errs += e
		results += len(inv.ToolResults)
		return ratio(int64(e), int64(len(inv.ToolResults)))
	})
	m.Score = ratio(int64(errs), int64(results))
	m.Details = map[string]any{"errors": errs, "results": results}
	if len(failing) > 0 {
		m.Details["failed_tools"] = failing
	}
	if m.Score == nil {
		m.Reason = "no tool results recorded"
	}
	for i := range m.PerInvocation {
		if s := m.PerInvocation[i].Score; s != nil && *s > 0 {
			var names []string
			for _, r := range c.Actual[i].ToolResults {
				if toolFailed(r) {
					names = append(names, r.Name)
				}
			}
			m.PerInvocation[i].Reason = fmt.Sprintf("invocation %d: failed tool results: %s", i+1, strings.Join(names, ", "))
		}
	}
}

func contextSaturation(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	var top int64
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		var n int64
		for _, s := range inv.Steps {
			n = max(n, s.Usage.Prompt)
		}
		top = max(top, n)
		return Float(float64(n))
	})
	m.Score = Float(float64(top))
}

func outputDensity(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	var sum, calls int64
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		var s, n int64
		for _, st := range inv.Steps {
			if st.Status == 0 || st.Status/100 == 2 {
				s += st.Usage.Candidates
				n++
			}
		}
		sum, calls = sum+s, calls+n
		return ratio(s, n)
	})
	m.Score = ratio(sum, calls)
	if m.Score == nil {
		m.Reason = "no successful model calls"
	}
}

// SessionRun is one session's run metrics as a row: the columns of
// adkproxy simulate's sessions.csv, each computed by the run metric of the
// same name (runMetric), so the table and score agree.
type SessionRun struct {
	// Duration is the sum of the invocations' Elapsed when known, else of
	// their model calls' latencies (latency_invocation_ms).
	Duration     time.Duration
	TotalTokens  int64
	CacheHitRate *float64 // nil without prompt tokens
	TurnCount    int
	ToolCalls    int
	ToolErrors   int
	// UniqueTools are the distinct tools called, sorted.
	UniqueTools     []string
	ToolSuccessRate *float64 // nil without tool calls
	ReasoningRatio  *float64 // nil without output tokens
	// GroundingCited is grounding_utilization: chunks cited.
	GroundingCited int
	// SandboxCalls is sandbox_usage: calls to file and artifact tools.
	SandboxCalls int
	// ToolLatencyMS is tool_latency_ms's mean; nil without tool traffic.
	ToolLatencyMS *float64
	AgentHandoffs int
}

// runOf computes c's SessionRun from its actual invocations.
func runOf(cfg *Config, c *Case) SessionRun {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	metric := func(name string) MetricResult {
		var m MetricResult
		runMetric(cfg, &Criterion{Metric: name, Stat: "mean"}, c, &m)
		return m
	}
	count := func(m MetricResult) int {
		if m.Score == nil {
			return 0
		}
		return int(*m.Score)
	}
	out := SessionRun{TurnCount: len(c.Actual), CacheHitRate: metric(metricCacheHitRate).Score,
		ToolCalls: count(metric(metricToolCalls)), UniqueTools: toolNamesOf(c),
		ToolSuccessRate: metric(metricToolSuccessRate).Score, ReasoningRatio: metric(metricReasoningRatio).Score,
		GroundingCited: count(metric(metricGroundingUtilization)), SandboxCalls: count(metric(metricSandboxUsage)),
		ToolLatencyMS: metric(metricToolLatencyMS).Score, AgentHandoffs: count(metric(metricAgentHandoffs))}
	if m := metric(metricTotalTokens); m.Score != nil {
		out.TotalTokens = int64(*m.Score)
	}
	if m := metric(metricToolErrorRate); m.Details != nil {
		out.ToolErrors, _ = m.Details["errors"].(int)
	}
	for _, inv := range c.Actual {
		if inv.Elapsed > 0 {
			out.Duration += inv.Elapsed
			continue
		}
		for _, s := range inv.Steps {
			out.Duration += s.Latency
		}
	}
	return out
}

func ratio(n, d int64) *float64 {
	if d == 0 {
		return nil
	}
	return Float(float64(n) / float64(d))
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// statOf is the mean, the median (p50: the middle value, or the mean of the
// two middle ones) or the maximum; nil for no values.
func statOf(stat string, values []float64) *float64 {
	if len(values) == 0 {
		return nil
	}
	switch stat {
	case "max":
		top := values[0]
		for _, v := range values[1:] {
			top = max(top, v)
		}
		return Float(top)
	case "p50":
		s := append([]float64(nil), values...)
		sort.Float64s(s)
		n := len(s)
		if n%2 == 1 {
			return Float(s[n/2])
		}
		return Float((s[n/2-1] + s[n/2]) / 2)
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return Float(sum / float64(len(values)))
}

func statDetails(stat string, values []float64, of string) map[string]any {
	d := map[string]any{"stat": stat, "n": len(values), "of": of}
	if len(values) > 0 {
		d["mean"], d["p50"], d["max"] = *statOf("mean", values), *statOf("p50", values), *statOf("max", values)
	}
	return d
}

// toolFailed: a response with a non-null "error" key (ADK reports tool
// exceptions as {"error": "…"}) or with "status": "error".
func toolFailed(r cassettes.ToolResult) bool {
	if e, ok := r.Response["error"]; ok && e != nil {
		return true
	}
	s, ok := r.Response["status"].(string)
	return ok && strings.EqualFold(s, "error")
}

func cost(prices map[string]Price, c *Case, m *MetricResult) {
	byModel := map[string]float64{}
	unknown := map[string]int{}
	total := 0.0
	for i := range c.Actual {
		sum := 0.0
		for _, s := range c.Actual[i].Steps {
			if s.Usage == (Usage{}) {
				continue
			}
			name := s.Model
			if name == "" {
				name = "(unknown model)"
			}
			p, ok := priceFor(prices, s.Model)
			if !ok {
				unknown[name]++
				continue
			}
			x := p.Cost(s.Usage)
			sum += x
			byModel[name] += x
		}
		total += sum
		m.PerInvocation = append(m.PerInvocation, InvocationScore{Index: i, Score: Float(sum)})
	}
	m.Details = map[string]any{"prices_as_of": pricesAsOf, "per_model": byModel}
	if len(unknown) > 0 {
		var names []string
		for _, n := range slices.Sorted(maps.Keys(unknown)) {
			names = append(names, fmt.Sprintf("%s (%s)", n, textfmt.Plural(unknown[n], "call")))
		}
		m.Reason = fmt.Sprintf("no price for %s: add it under \"adkproxy\": {\"prices\": {MODEL: {\"input\": …, \"cached_input\": …, \"output\": …}}} (USD per 1M tokens); known: %s",
			strings.Join(names, ", "), strings.Join(slices.Sorted(maps.Keys(prices)), ", "))
		for i := range m.PerInvocation {
			m.PerInvocation[i].Score = nil
			m.PerInvocation[i].Reason = ""
		}
		return
	}
	m.Score = Float(total)
}
