// A run metric next to the golden run's: when the expectations are a
// golden run's cassettes (their invocations have recorded steps), each run
// metric is also computed on them, so a change in tokens, cost or latency
// shows as "2057 (golden 1662, +23.8 %)".

package scoring

import (
	"fmt"
	"math"
)

// goldenRunMetric adds to m, a run metric of c, the same metric computed on
// c's golden run, as Details "golden" (and "change_percent" when the
// golden value is not 0). Eval set expectations have no steps: nothing is
// added then.
func goldenRunMetric(cfg *Config, cr *Criterion, c *Case, m *MetricResult) {
	if m.Score == nil || !hasSteps(c.Expected) {
		return
	}
	var g MetricResult
	runMetric(cfg, cr, &Case{ID: c.ID, Actual: c.Expected}, &g)
	if g.Score == nil {
		return
	}
	details := map[string]any{"golden": *g.Score}
	for k, v := range m.Details {
		details[k] = v
	}
	if *g.Score != 0 {
		details["change_percent"] = (*m.Score - *g.Score) / math.Abs(*g.Score) * 100
	}
	m.Details = details
}

func hasSteps(invs []Invocation) bool {
	for _, inv := range invs {
		if len(inv.Steps) > 0 {
			return true
		}
	}
	return false
}

// outGolden is the golden value and the change after a run metric's score,
// " (golden 1662, +23.8 %)", or "" when it has none.
func outGolden(m MetricResult) string {
	g, ok := m.Details["golden"].(float64)
	if !ok {
		return ""
	}
	if pct, ok := m.Details["change_percent"].(float64); ok {
		return fmt.Sprintf(" (golden %s, %+.1f %%)", outNumber(g), pct)
	}
	return fmt.Sprintf(" (golden %s)", outNumber(g))
}
