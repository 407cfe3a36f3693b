// Package scoring turns captured Gemini exchanges into agent trajectories and
// scores them with metrics that reproduce Google ADK's evaluation results, so a
// replayed run can be judged exactly as ADK would judge it.
//
// The pipeline:
//
//	cfg, _ := scoring.LoadConfig("test_config.json")    // ADK's EvalConfig + "adkproxy" settings (or DefaultConfig())
//	exp, _ := scoring.LoadExpected("tests/")            // eval sets, or a golden run's cassettes (or nil)
//	cases, unpaired := scoring.Pair(scoring.SessionsOf(cs), exp)
//	result := scoring.Evaluate(ctx, cfg, cases)         // ADK's statuses, with reasons
//
// Computed metrics: ADK's tool_trajectory_avg_score and response_match_score
// (ROUGE-1 identical to rouge_score, with NLTK's Porter stemmer); adkproxy's
// trajectory_precision, trajectory_recall, trajectory_f1 and single_tool_use
// with per-tool argument matchers; deterministic run metrics from the recorded
// model calls (tokens, cost, latency, cache and thinking ratios, tool use);
// custom metrics run as commands in any language or as ADK's Python
// functions (code_config.name); ADK's LLM-judged metrics
// when Config.Judge is set (package judge). Where ADK releases differ,
// the newest behaviour is followed and the doc comment says so.
package scoring
