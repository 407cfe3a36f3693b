// The JSON result for ADK 1.18, whose EvalMetricResultDetails forbid every
// key but rubric_scores and whose EvalMetric requires a number threshold:
// what adkproxy adds moves to the case result's details, which ADK's
// EvalCaseResult ignores.

package scoring

// adkDetailsKey is the one key ADK 1.18 reads in a metric result's details.
const adkDetailsKey = "rubric_scores"

// outStrictDetails moves every key of ec's metric results' details but
// rubric_scores to ec.Details: "metric_details" maps each metric's name
// to what left its overall result, "invocation_metric_details" has one
// object per entry of eval_metric_result_per_invocation, mapping metric
// names to what left that invocation's result. A threshold null (an
// informational metric) is written 0, its "informational" key moving with
// the rest.
func outStrictDetails(ec *outEvalCaseResult) {
	overall := map[string]any{}
	for i := range ec.OverallEvalMetricResults {
		m := &ec.OverallEvalMetricResults[i]
		if rest := outStrictMetric(m); rest != nil {
			overall[m.MetricName] = rest
		}
	}
	var perInvocation []any
	moved := false
	for i := range ec.EvalMetricResultPerInvocation {
		p := &ec.EvalMetricResultPerInvocation[i]
		inv := map[string]any{}
		for j := range p.EvalMetricResults {
			m := &p.EvalMetricResults[j]
			if rest := outStrictMetric(m); rest != nil {
				inv[m.MetricName] = rest
				moved = true
			}
		}
		perInvocation = append(perInvocation, inv)
	}
	if len(overall) == 0 && !moved {
		return
	}
	if ec.Details == nil {
		ec.Details = map[string]any{}
	}
	if len(overall) > 0 {
		ec.Details["metric_details"] = overall
	}
	if moved {
		ec.Details["invocation_metric_details"] = perInvocation
	}
}

// outStrictMetric leaves only rubric_scores in m's details and returns the
// rest (nil for nothing), and gives a null threshold the number 0.
func outStrictMetric(m *outEvalMetricResult) map[string]any {
	if m.Threshold == nil {
		m.Threshold = Float(0)
	}
	var rest map[string]any
	kept := map[string]any{}
	for k, v := range m.Details {
		if k == adkDetailsKey {
			kept[k] = v
			continue
		}
		if rest == nil {
			rest = map[string]any{}
		}
		rest[k] = v
	}
	m.Details = kept
	return rest
}
