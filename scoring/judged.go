// ADK's LLM-judged metrics: which they are, the interface a judge
// implements to compute them, and what scoring hands it (prices, the
// failure rule it shares with the other metrics that compare).

package scoring

import (
	"context"
	"strings"
)

// ADK's LLM-judged metrics, computed when Config.Judge is set (package
// judge implements it); without one they are NOT_EVALUATED.
const (
	FinalResponseMatchV2              = "final_response_match_v2"
	RubricBasedFinalResponseQualityV1 = "rubric_based_final_response_quality_v1"
	RubricBasedToolUseQualityV1       = "rubric_based_tool_use_quality_v1"
	HallucinationsV1                  = "hallucinations_v1"
	// PerTurnUserSimulatorQualityV1 grades the user turns of a
	// simulated conversation (conversation_scenario cases only).
	PerTurnUserSimulatorQualityV1 = "per_turn_user_simulator_quality_v1"
)

// Judge computes ADK's LLM-judged metrics. Evaluate fills m's Score,
// PerInvocation (scores, reasons, Details, Notes) and Details for criterion
// cr on case c, leaving statuses to scoring; a metric it cannot compute
// gets no Score and a Reason. It is called once per case and criterion,
// from several goroutines for different cases.
type Judge interface {
	Evaluate(ctx context.Context, cr *Criterion, c *Case, m *MetricResult)
}

// ModelEndpoint gives a custom metric's process a Gemini endpoint whose
// calls are recorded and replayed with the judge's (package judge's
// Endpoint): Open returns the environment to add (GOOGLE_GEMINI_BASE_URL
// and what else the endpoint needs) for metric on case c, and a func that
// closes the endpoint once the metric has run.
type ModelEndpoint interface {
	Open(c *Case, metric string) (env []string, done func(), err error)
}

// IsJudged says whether metric is one of ADK's LLM-judged metrics.
func IsJudged(metric string) bool {
	switch metric {
	case FinalResponseMatchV2, RubricBasedFinalResponseQualityV1, RubricBasedToolUseQualityV1, HallucinationsV1, PerTurnUserSimulatorQualityV1:
		return true
	}
	return false
}

// evaluateJudged runs a judged metric through cfg.Judge; nil when there is
// no judge, and the caller reports the metric NOT_EVALUATED as before.
func evaluateJudged(ctx context.Context, cfg *Config, cr *Criterion, c *Case, m *MetricResult) bool {
	if cr.Scale != nil {
		if cfg.Judge == nil {
			m.Reason = judgeMissing
		} else if c.Failure != "" {
			m.Reason = "not compared: " + c.Failure
		} else {
			cfg.Judge.Evaluate(ctx, cr, c, m)
		}
		return true
	}
	if cfg.Judge == nil || !IsJudged(cr.Metric) || cr.Adkproxy {
		return false
	}
	switch {
	case c.Failure != "":
		m.Reason = "not compared: " + c.Failure
	case cr.Metric == FinalResponseMatchV2 && c.Expected == nil && c.Scenario != nil:
		m.Reason = scenarioNoExpected
	case cr.Metric == FinalResponseMatchV2 && c.Expected == nil:
		m.Reason = "no expected invocations: final_response_match_v2 compares with the expected final responses"
	case cr.Metric == PerTurnUserSimulatorQualityV1 && c.Scenario == nil:
		m.Reason = "per_turn_user_simulator_quality_v1 grades a simulated user: the eval case has no conversation_scenario"
	default:
		cfg.Judge.Evaluate(ctx, cr, c, m)
	}
	return true
}

// CostOf is the price in USD of a model call's usage by the configured
// price table (Settings.Prices); false when the model has no price.
func (cfg *Config) CostOf(model string, u Usage) (float64, bool) {
	p, ok := priceFor(cfg.Adkproxy.Prices, model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// judgeMissing is why a judged metric is NOT_EVALUATED without a judge.
const judgeMissing = "it needs an LLM judge and none was given (adkproxy score --judge-cassettes DIR replays or records one)"

// outNotes are m's notes that its reasons (outReasons) do not already
// tell, for the table and markdown formats.
func outNotes(m MetricResult) []string {
	reasons := outReasons(m)
	var out []string
	for _, n := range m.Notes {
		told := false
		for _, r := range reasons {
			if strings.Contains(r, n) {
				told = true
				break
			}
		}
		if !told {
			out = append(out, n)
		}
	}
	return out
}
