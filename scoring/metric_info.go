// A custom metric's metric_info: read, checked, shown, and the score
// checked against its value interval.

package scoring

import (
	"fmt"
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// metricInterval is metric_info.metric_value_info.interval.
type metricInterval struct {
	min, max         float64
	openMin, openMax bool
}

func (iv metricInterval) String() string {
	lo, hi := "[", "]"
	if iv.openMin {
		lo = "("
	}
	if iv.openMax {
		hi = ")"
	}
	return lo + strconv.FormatFloat(iv.min, 'g', -1, 64) + ", " + strconv.FormatFloat(iv.max, 'g', -1, 64) + hi
}

func (iv metricInterval) holds(f float64) bool {
	return (f > iv.min || (!iv.openMin && f == iv.min)) && (f < iv.max || (!iv.openMax && f == iv.max))
}

// parseMetricInfo checks ADK's MetricInfo: metric_name and description
// strings, metric_value_info.interval with min_value ≤ max_value (ADK's
// default [0, 1] when not given) and the open_at_min / open_at_max
// booleans; snake_case or camelCase.
func parseMetricInfo(n pyjson.Value) (description string, iv metricInterval, err error) {
	iv = metricInterval{min: 0, max: 1}
	o, err := n.Object()
	if err != nil {
		return "", iv, err
	}
	if err := n.CheckKeys(o, "metric_name", "metricName", "description", "metric_value_info", "metricValueInfo"); err != nil {
		return "", iv, err
	}
	if mn, ok := n.PyField(o, "metric_name"); ok {
		if _, err := mn.OptStr(); err != nil {
			return "", iv, err
		}
	}
	if d, ok := n.Field(o, "description"); ok {
		if description, err = d.OptStr(); err != nil {
			return "", iv, err
		}
	}
	vi, ok := n.PyField(o, "metric_value_info")
	if !ok || vi.V == nil {
		return description, iv, nil
	}
	vo, err := vi.Object()
	if err != nil {
		return "", iv, err
	}
	if err := vi.CheckKeys(vo, "interval"); err != nil {
		return "", iv, err
	}
	in, ok := vi.Field(vo, "interval")
	if !ok || in.V == nil {
		return description, iv, nil
	}
	io, err := in.Object()
	if err != nil {
		return "", iv, err
	}
	if err := in.CheckKeys(io, "min_value", "minValue", "max_value", "maxValue", "open_at_min", "openAtMin", "open_at_max", "openAtMax"); err != nil {
		return "", iv, err
	}
	for _, f := range []struct {
		key string
		num *float64
		b   *bool
	}{{"min_value", &iv.min, nil}, {"max_value", &iv.max, nil}, {"open_at_min", nil, &iv.openMin}, {"open_at_max", nil, &iv.openMax}} {
		fn, ok := in.PyField(io, f.key)
		if !ok {
			continue
		}
		if f.num != nil {
			v, err := fn.Number()
			if err != nil {
				return "", iv, err
			}
			if !finite(v) {
				return "", iv, fn.Errorf("%g is not a finite bound", v)
			}
			*f.num = v
		} else if *f.b, err = fn.Bool(); err != nil {
			return "", iv, err
		}
	}
	if iv.min > iv.max {
		return "", iv, in.Errorf("min_value %g is above max_value %g", iv.min, iv.max)
	}
	return description, iv, nil
}

// checkMetricInfo shows a custom metric's metric_info below it and, when
// metric_info was given, refuses a score outside its value interval (the
// metric is then NOT_EVALUATED with the reason).
func checkMetricInfo(cm *CustomMetric, m *MetricResult) {
	if cm.MetricInfo == nil {
		return
	}
	note := "values in " + cm.interval.String()
	if cm.infoDescription != "" {
		note = cm.infoDescription + " (" + note + ")"
	}
	m.Notes = append(m.Notes, "metric_info: "+note)
	if m.Score != nil && !cm.interval.holds(*m.Score) {
		m.Reason = fmt.Sprintf("score %s is outside metric_info's interval %s", strconv.FormatFloat(*m.Score, 'g', -1, 64), cm.interval)
		m.Score, m.Status = nil, NotEvaluated
	}
	for i := range m.PerInvocation {
		p := &m.PerInvocation[i]
		if p.Score != nil && !cm.interval.holds(*p.Score) {
			p.Reason = fmt.Sprintf("invocation %d: score %s is outside metric_info's interval %s", p.Index+1, strconv.FormatFloat(*p.Score, 'g', -1, 64), cm.interval)
			p.Score, p.Status = nil, NotEvaluated
		}
	}
}
