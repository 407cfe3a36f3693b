// The metric names, ADK's and adkproxy's: what each computes, needs and
// allows, and why adkproxy does not compute some of ADK's.

package scoring

import (
	"slices"
	"strings"
)

// ADK's metrics computed by adkproxy (configured under "criteria").
const (
	// ToolTrajectoryAvgScore is ADK's tool_trajectory_avg_score
	// (trajectory_evaluator.py): each invocation scores 1.0 when its tool
	// calls match the expected ones under the match type, else 0.0; the
	// overall score is the sum over invocations divided by their number; no
	// invocations → no score (NOT_EVALUATED). Calls are equal when the names
	// are equal and, unless ignore_args, the args are equal as Python dicts
	// (pyEqual; null args ≠ {}); ids and tool responses take no part.
	//
	//   - EXACT (default): same number of calls, pairwise equal; two empty
	//     lists match.
	//   - IN_ORDER: the expected calls appear among the actual ones in
	//     order, possibly with others between, found greedily.
	//   - ANY_ORDER: each expected call, in turn, consumes the first equal
	//     actual call not consumed yet.
	//
	// For IN_ORDER and ANY_ORDER no expected calls always match, and
	// otherwise no actual calls never do. ignore_args is newer ADK's (PR
	// #4795), followed here; older releases always compare args. Arg
	// matchers never apply to this metric.
	ToolTrajectoryAvgScore = "tool_trajectory_avg_score"

	// ResponseMatchScore is ADK's response_match_score
	// (final_response_match_v1.py): per invocation the ROUGE-1 F-measure
	// (rouge.Rouge1) of the actual final response against the expected one as the
	// reference, the text of a response being "\n".join of its text parts
	// ("" without any); the overall score is the sum divided by the number
	// of invocations. Stemming follows newer ADK: the Porter stemmer is used
	// only when both texts are mostly Latin script (rouge.UseStemmerFor); older
	// releases always stem (the two differ only for other scripts).
	ResponseMatchScore = "response_match_score"
)

// adkproxy's metrics (configured under adkproxy.criteria).
//
// TrajectoryPrecision, TrajectoryRecall and TrajectoryF1 give partial
// credit per invocation from a one-to-one matching of actual and expected
// calls (a maximum bipartite matching: order does not matter, each call
// counts once), calls matching when the names are equal and the arguments
// match under the ArgMatchers (Python equality by default):
//
//	precision = matched / #actual, recall = matched / #expected,
//	f1 = 2·precision·recall / (precision + recall), 0 when both are 0.
//
// Both lists empty → 1.0 for all three; one empty and not the other → 0.0
// (Ragas's convention). The overall score is the sum over invocations
// divided by their number, as for ADK's metrics.
//
// SingleToolUse (Vertex AI's trajectory_single_tool_use) needs no
// expectations: an invocation scores 1.0 when any of its tool calls is the
// configured "tool", else 0.0; overall the sum divided by the number of
// invocations.
//
// The others are run metrics: see RunMetrics.
const (
	metricTrajectoryPrecision = "trajectory_precision"
	metricTrajectoryRecall    = "trajectory_recall"
	metricTrajectoryF1        = "trajectory_f1"
	metricSingleToolUse       = "single_tool_use"

	metricPromptTokens        = "prompt_tokens"
	metricCandidatesTokens    = "candidates_tokens"
	metricCachedTokens        = "cached_tokens"
	metricThoughtsTokens      = "thoughts_tokens"
	metricToolUseTokens       = "tool_use_tokens"
	metricTotalTokens         = "total_tokens"
	metricCostUSD             = "cost_usd"
	metricLatencyCallMS       = "latency_call_ms"
	metricLatencyInvocationMS = "latency_invocation_ms"
	metricCacheHitRate        = "cache_hit_rate"
	metricThinkingRatio       = "thinking_ratio"
	metricToolCalls           = "tool_calls"
	metricUniqueTools         = "unique_tools"
	metricToolErrorRate       = "tool_error_rate"
	metricAgentHandoffs       = "agent_handoffs"
	metricContextSaturation   = "context_saturation"
	metricOutputDensity       = "output_density"

	// The evaluation pipeline's (metric_pipeline.go).
	metricToolSuccessRate      = "tool_success_rate"
	metricReasoningRatio       = "reasoning_ratio"
	metricGroundingUtilization = "grounding_utilization"
	metricSandboxUsage         = "sandbox_usage"
	metricToolLatencyMS        = "tool_latency_ms"
)

// adkNotComputed are ADK's prebuilt metric names (newest ADK) that
// adkproxy does not compute itself, with why (the judged ones are computed
// when a judge is given).
var adkNotComputed = map[string]string{
	"response_evaluation_score":              "it needs Vertex AI's Gen AI Evaluation service",
	"safety_v1":                              "it needs Vertex AI's Gen AI Evaluation service (SAFETY): give --judge-cassettes DIR to record or replay its calls",
	"final_response_match_v2":                judgeMissing,
	"rubric_based_final_response_quality_v1": judgeMissing,
	"rubric_based_tool_use_quality_v1":       judgeMissing,
	"hallucinations_v1":                      judgeMissing,
	"per_turn_user_simulator_quality_v1":     judgeMissing,
	"multi_turn_task_success_v1":             "it needs Vertex AI's Gen AI Evaluation service",
	"multi_turn_trajectory_quality_v1":       "it needs Vertex AI's Gen AI Evaluation service",
	"multi_turn_tool_use_quality_v1":         "it needs Vertex AI's Gen AI Evaluation service",
}

// isMultiTurnMetric accepts further multi_turn_*_v1 metrics of newer ADK
// releases, which are judged by Vertex AI like the ones listed.
func isMultiTurnMetric(name string) bool {
	return strings.HasPrefix(name, "multi_turn_") && strings.HasSuffix(name, "_v1")
}

// RunMetrics lists the deterministic run metrics, in report order. They
// are computed from the recorded model calls (Steps) of the actual
// invocations, need no expectations, and run only when configured under
// adkproxy.criteria (or all of them, without thresholds, with
// report_run_metrics). Each invocation gets its own value; the case's score
// is computed over the whole case (a sum, a ratio of sums or a statistic
// over all calls, never a mean of per-invocation ratios):
//
//	prompt_tokens … total_tokens  Σ of Gemini's usageMetadata counts (prompt,
//	                              candidates, cachedContent, thoughts,
//	                              toolUsePrompt, total); the prompt count
//	                              includes the cached tokens
//	cost_usd                      Σ per call of Price.Cost (adkproxy.prices over
//	                              DefaultPrices); NOT_EVALUATED when a call
//	                              with tokens has a model without a price
//	latency_call_ms               the "stat" (mean, p50 = median, max) of the
//	                              model calls' latencies, failed calls included
//	latency_invocation_ms         the stat of the invocations' latencies, an
//	                              invocation's latency being the sum of its
//	                              model calls' (the proxy sees model time,
//	                              not the tools' time between calls)
//	cache_hit_rate                Σ cached / Σ prompt
//	thinking_ratio                Σ thoughts / (Σ candidates + Σ thoughts)
//	tool_calls, unique_tools      function calls made (transfer_to_agent
//	                              included), and distinct tool names
//	tool_error_rate               tool results whose response has a non-null
//	                              "error" key or "status": "error" / all
//	                              tool results
//	agent_handoffs                transfer_to_agent calls
//	context_saturation            the largest prompt of any model call, in
//	                              tokens
//	output_density                mean candidates tokens per successful model
//	                              call
//
// A ratio with a zero denominator has no score (NOT_EVALUATED). Details
// carry mean, p50, max and n for the latencies, per-tool counts, per-model
// costs and the price date. Token-, cost- and latency-like metrics and
// tool_error_rate take only {"max": X} thresholds.
func RunMetrics() []string { return runMetricNames() }

// knownMetrics lists adkproxy's own metric names (adkproxy.criteria).
func knownMetrics() []string {
	var names []string
	for _, d := range metricTable {
		if !d.adk {
			names = append(names, d.name)
		}
	}
	slices.Sort(names)
	return names
}
