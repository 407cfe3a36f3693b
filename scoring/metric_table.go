// The metrics adkproxy computes, one row each: what a metric needs, how it
// is configured, and the function that computes it. Adding a metric is
// adding a row (and its name constant).

package scoring

import (
	"maps"
	"slices"
)

// metricKind says what a metric reads.
type metricKind int

const (
	// compared: actual invocations against expected ones (NOT_EVALUATED
	// without expectations).
	compared metricKind = iota + 1
	// actualOnly: the actual invocations alone.
	actualOnly
	// run: the recorded model calls (Steps) of the actual invocations; a
	// golden run's value is added beside it (goldenRunMetric).
	run
)

// metricDef is one computed metric.
type metricDef struct {
	name string
	kind metricKind
	// adk: ADK's metric, configured under "criteria"; else adkproxy's,
	// under adkproxy.criteria.
	adk bool
	// lowerIsBetter: only a {"max": X} threshold makes sense.
	lowerIsBetter bool
	// hasStat: takes "stat" (mean, p50, max).
	hasStat bool
	// doc says in one line what the score is.
	doc     string
	compute func(cfg *Config, cr *Criterion, c *Case, m *MetricResult)
}

// metricTable lists the computed metrics; the run metrics in report order.
var metricTable = []metricDef{
	{name: ToolTrajectoryAvgScore, kind: compared, adk: true, doc: "share of invocations whose tool calls match the expected ones under the match type",
		compute: func(cfg *Config, cr *Criterion, c *Case, m *MetricResult) { toolTrajectory(cfg, cr, c, m) }},
	{name: ResponseMatchScore, kind: compared, adk: true, doc: "mean ROUGE-1 F-measure of the final responses against the expected ones",
		compute: func(cfg *Config, _ *Criterion, c *Case, m *MetricResult) { responseMatch(cfg, c, m) }},
	{name: metricTrajectoryPrecision, kind: compared, doc: "matched tool calls / actual tool calls, per invocation", compute: partialTrajectoryMetric},
	{name: metricTrajectoryRecall, kind: compared, doc: "matched tool calls / expected tool calls, per invocation", compute: partialTrajectoryMetric},
	{name: metricTrajectoryF1, kind: compared, doc: "harmonic mean of trajectory precision and recall, per invocation", compute: partialTrajectoryMetric},
	{name: metricSingleToolUse, kind: actualOnly, doc: "share of invocations that call the configured tool",
		compute: func(_ *Config, cr *Criterion, c *Case, m *MetricResult) { singleToolUse(cr, c, m) }},

	{name: metricPromptTokens, kind: run, lowerIsBetter: true, doc: "Σ prompt tokens (cached included)", compute: tokenSum(func(u Usage) int64 { return u.Prompt })},
	{name: metricCandidatesTokens, kind: run, lowerIsBetter: true, doc: "Σ candidates tokens", compute: tokenSum(func(u Usage) int64 { return u.Candidates })},
	{name: metricCachedTokens, kind: run, doc: "Σ cached content tokens", compute: tokenSum(func(u Usage) int64 { return u.Cached })},
	{name: metricThoughtsTokens, kind: run, lowerIsBetter: true, doc: "Σ thoughts tokens", compute: tokenSum(func(u Usage) int64 { return u.Thoughts })},
	{name: metricToolUseTokens, kind: run, lowerIsBetter: true, doc: "Σ tool-use prompt tokens", compute: tokenSum(func(u Usage) int64 { return u.ToolUse })},
	{name: metricTotalTokens, kind: run, lowerIsBetter: true, doc: "Σ total tokens", compute: tokenSum(func(u Usage) int64 { return u.Total })},
	{name: metricCostUSD, kind: run, lowerIsBetter: true, doc: "Σ per model call of its price in USD",
		compute: func(cfg *Config, _ *Criterion, c *Case, m *MetricResult) { cost(cfg.Adkproxy.Prices, c, m) }},
	{name: metricLatencyCallMS, kind: run, lowerIsBetter: true, hasStat: true, doc: "the stat of the model calls' latencies", compute: latencyCall},
	{name: metricLatencyInvocationMS, kind: run, lowerIsBetter: true, hasStat: true, doc: "the stat of the invocations' latencies (sums of their model calls')", compute: latencyInvocation},
	{name: metricCacheHitRate, kind: run, doc: "Σ cached / Σ prompt tokens",
		compute: tokenRatio(func(u Usage) int64 { return u.Cached }, func(u Usage) int64 { return u.Prompt }, "no prompt tokens recorded")},
	{name: metricThinkingRatio, kind: run, doc: "Σ thoughts / (Σ candidates + Σ thoughts) tokens", compute: thinkingRatio},
	{name: metricToolCalls, kind: run, doc: "function calls made", compute: toolCallCount},
	{name: metricUniqueTools, kind: run, doc: "distinct tool names called", compute: uniqueToolCount},
	{name: metricToolErrorRate, kind: run, lowerIsBetter: true, doc: "failed tool results / tool results", compute: toolErrorRate},
	{name: metricAgentHandoffs, kind: run, doc: "transfer_to_agent calls and calls of agents used as tools", compute: agentHandoffs},
	{name: metricContextSaturation, kind: run, lowerIsBetter: true, doc: "the largest prompt of any model call, in tokens", compute: contextSaturation},
	{name: metricOutputDensity, kind: run, doc: "mean candidates tokens per successful model call", compute: outputDensity},
	{name: metricToolSuccessRate, kind: run, doc: "tool calls whose result has no error / tool calls", compute: toolSuccessRate},
	{name: metricReasoningRatio, kind: run, doc: "thinking_ratio under the evaluation pipeline's name", compute: thinkingRatio},
	{name: metricGroundingUtilization, kind: run, doc: "grounding chunks cited by the answers' grounding supports", compute: groundingUtilization},
	{name: metricSandboxUsage, kind: run, doc: "calls to file and artifact tools (the criterion's \"tools\", or DefaultSandboxTools)", compute: sandboxUsage},
	{name: metricToolLatencyMS, kind: run, lowerIsBetter: true, hasStat: true, doc: "the stat of the tools' HTTP requests' latencies (through the forward proxy)", compute: toolLatency},
}

// thinkingRatio is thinking_ratio's and reasoning_ratio's computation.
var thinkingRatio = tokenRatio(func(u Usage) int64 { return u.Thoughts }, func(u Usage) int64 { return u.Candidates + u.Thoughts }, "no output tokens recorded")

// metrics finds a computed metric by name.
var metrics = func() map[string]*metricDef {
	out := make(map[string]*metricDef, len(metricTable))
	for i := range metricTable {
		out[metricTable[i].name] = &metricTable[i]
	}
	return out
}()

// adkproxyMetric is adkproxy's own metric of that name (adkproxy.criteria).
func adkproxyMetric(name string) (*metricDef, bool) {
	d, ok := metrics[name]
	return d, ok && !d.adk
}

// isADKMetric: one of ADK's prebuilt metric names, computed or not.
func isADKMetric(name string) bool {
	if d, ok := metrics[name]; ok && d.adk {
		return true
	}
	_, ok := adkNotComputed[name]
	return ok
}

// adkMetricNames lists ADK's prebuilt metric names, sorted.
func adkMetricNames() []string {
	names := slices.Collect(maps.Keys(adkNotComputed))
	for _, d := range metricTable {
		if d.adk {
			names = append(names, d.name)
		}
	}
	slices.Sort(names)
	return names
}

// runMetricNames is the report order of the run metrics.
func runMetricNames() []string {
	var out []string
	for _, d := range metricTable {
		if d.kind == run {
			out = append(out, d.name)
		}
	}
	return out
}
