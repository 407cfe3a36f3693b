// ADK's metrics that the Vertex AI Gen AI Evaluation service computes:
// which they are, and handing them to Config.Vertex.

package scoring

import "context"

// SafetyV1 is ADK's safety_v1, computed by Vertex AI's evaluation service.
const SafetyV1 = "safety_v1"

// IsVertex says whether metric is one of ADK's metrics that ADK computes
// through Vertex AI's evaluation service with one pointwise call per
// invocation and Config.Vertex computes: safety_v1 and the multi_turn_*_v1
// metrics.
func IsVertex(metric string) bool {
	return metric == SafetyV1 || isMultiTurnMetric(metric)
}

// evaluateVertex runs a Vertex metric through cfg.Vertex; false when there
// is none (the metric is then NOT_EVALUATED, saying it needs Vertex AI).
// The evaluator sets every status itself: ADK's rules for these metrics
// differ (a score of 0 counts as no score).
func evaluateVertex(ctx context.Context, cfg *Config, cr *Criterion, c *Case, m *MetricResult) bool {
	if cfg.Vertex == nil || !IsVertex(cr.Metric) || cr.Adkproxy {
		return false
	}
	if c.Failure != "" {
		m.Reason = "not compared: " + c.Failure
		return true
	}
	cfg.Vertex.Evaluate(ctx, cr, c, m)
	return true
}
