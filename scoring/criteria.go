// A criterion: one configured metric and how it is judged, and parsing the
// ADK and adkproxy criteria entries of an eval config into one.

package scoring

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
)

// MatchType is ToolTrajectoryCriterion.MatchType; the numbers are ADK's.
type MatchType int

// The match types, as ADK numbers them.
const (
	Exact    MatchType = 0
	InOrder  MatchType = 1
	AnyOrder MatchType = 2
)

// String is ADK's name of the match type (EXACT, IN_ORDER, ANY_ORDER).
func (m MatchType) String() string {
	switch m {
	case Exact:
		return "EXACT"
	case InOrder:
		return "IN_ORDER"
	case AnyOrder:
		return "ANY_ORDER"
	}
	return fmt.Sprintf("MatchType(%d)", int(m))
}

// Criterion is one configured metric and how it is judged.
type Criterion struct {
	Metric string
	// Threshold is the minimum passing score, or the maximum when Max.
	Threshold float64
	Max       bool
	// Informational: no threshold; the score is reported with status
	// NOT_EVALUATED (ADK's newer INFORMATIONAL status has no settled value,
	// so the JSON value 3 is used) and never decides the case.
	Informational bool
	// tool_trajectory_avg_score only.
	MatchType  MatchType
	IgnoreArgs bool
	// Tool is the tool single_tool_use looks for.
	Tool string
	// Tools are the tools sandbox_usage counts (nil: DefaultSandboxTools).
	Tools []string
	// Scale is set for an LLM metric defined under adkproxy.llm_metrics.
	Scale *ScaleMetric
	// check is set for a trajectory check defined under adkproxy.checks.
	check *check
	// Stat is the latency statistic that becomes the score: mean, p50, max.
	Stat string
	// Fields is the criterion as ADK writes it in results
	// (EvalMetricResult.criterion) and passes it to custom metrics: the
	// object as configured (ADK keeps it a BaseCriterion with extra
	// fields), a bare number becoming {"threshold": X}. For adkproxy's
	// metrics: {"threshold": X} or {"max": X}, plus "tool" and "stat".
	// Nil when Informational. Results share it: do not modify.
	Fields map[string]any
	// Adkproxy is true for metrics configured under adkproxy.criteria.
	Adkproxy bool
}

func (cfg *Config) parseADKCriterion(metric string, n pyjson.Value) (Criterion, error) {
	_, custom := cfg.CustomMetrics[metric]
	if !custom {
		if !isADKMetric(metric) && !isMultiTurnMetric(metric) {
			if _, ours := adkproxyMetric(metric); ours {
				return Criterion{}, n.Errorf("%s is adkproxy's metric, not ADK's: put it under \"adkproxy\": {\"criteria\": …} (ADK would reject it here)", metric)
			}
			return Criterion{}, n.Errorf("unknown metric; known ADK metrics: %s; or declare it in custom_metrics", strings.Join(adkMetricNames(), ", "))
		}
	}
	cr := Criterion{Metric: metric}
	switch v := n.V.(type) {
	case json.Number:
		f, err := n.Number()
		if err != nil {
			return cr, err
		}
		cr.Threshold = f
		cr.Fields = map[string]any{"threshold": f}
		return cr, nil
	case *pyjson.Object:
		th, ok := n.Field(v, "threshold")
		if !ok {
			return cr, th.Errorf("missing: a criterion object needs a threshold")
		}
		f, err := th.Number()
		if err != nil {
			return cr, err
		}
		cr.Threshold = f
		cr.Fields = map[string]any{}
		for _, k := range v.Keys() {
			cr.Fields[k] = pyjson.Plain(v.Val(k))
		}
		cr.Fields["threshold"] = f
		if metric == ToolTrajectoryAvgScore && !custom {
			if mt, ok := n.PyField(v, "match_type"); ok {
				if cr.MatchType, err = parseMatchType(mt); err != nil {
					return cr, err
				}
			}
			if ia, ok := n.PyField(v, "ignore_args"); ok {
				if cr.IgnoreArgs, err = ia.Bool(); err != nil {
					return cr, err
				}
			}
		}
		return cr, nil
	}
	return cr, n.Errorf("expected a threshold number or a criterion object, got %s", pyjson.Describe(n.V))
}

// parseMatchType accepts EXACT, IN_ORDER, ANY_ORDER in ADK's normalised
// spellings ("in-order", " any order ") and the numbers 0, 1, 2.
func parseMatchType(n pyjson.Value) (MatchType, error) {
	switch v := n.V.(type) {
	case string:
		s := strings.ToUpper(strings.TrimSpace(v))
		s = strings.NewReplacer("-", "_", " ", "_").Replace(s)
		switch s {
		case "EXACT":
			return Exact, nil
		case "IN_ORDER":
			return InOrder, nil
		case "ANY_ORDER":
			return AnyOrder, nil
		}
		return 0, n.Errorf("%q is not EXACT, IN_ORDER or ANY_ORDER", v)
	case json.Number:
		f, err := v.Float64()
		if err == nil && f == math.Trunc(f) && f >= 0 && f <= 2 {
			return MatchType(f), nil
		}
		return 0, n.Errorf("%s is not EXACT, IN_ORDER or ANY_ORDER (0, 1 or 2)", v)
	}
	return 0, n.Errorf("%s is not EXACT, IN_ORDER or ANY_ORDER", pyjson.Describe(n.V))
}

func parseAdkproxyCriterion(metric string, n pyjson.Value) (Criterion, error) {
	spec, ok := adkproxyMetric(metric)
	if !ok {
		if isADKMetric(metric) {
			return Criterion{}, n.Errorf("%s is ADK's metric: put it under the top-level \"criteria\"", metric)
		}
		return Criterion{}, n.Errorf("unknown metric; known adkproxy metrics: %s", strings.Join(knownMetrics(), ", "))
	}
	cr := Criterion{Metric: metric, Adkproxy: true, Stat: "mean"}
	switch v := n.V.(type) {
	case json.Number:
		if spec.lowerIsBetter {
			return cr, n.Errorf("%s is better when lower: write {\"max\": %s} (a bare number is a minimum)", metric, v)
		}
		f, err := n.Number()
		if err != nil {
			return cr, err
		}
		cr.Threshold = f
	case *pyjson.Object:
		known := []string{"threshold", "min", "max"}
		if metric == metricSingleToolUse {
			known = append(known, "tool")
		}
		if metric == metricSandboxUsage {
			known = append(known, "tools")
		}
		if spec.hasStat {
			known = append(known, "stat")
		}
		if err := n.CheckKeys(v, known...); err != nil {
			return cr, err
		}
		var bounds []pyjson.Value
		for _, k := range []string{"threshold", "min", "max"} {
			if b, ok := n.Field(v, k); ok {
				bounds = append(bounds, b)
			}
		}
		switch len(bounds) {
		case 0:
			cr.Informational = true
		case 1:
			f, err := bounds[0].Number()
			if err != nil {
				return cr, err
			}
			cr.Threshold = f
			cr.Max = strings.HasSuffix(bounds[0].Path, ".max")
			if !cr.Max && spec.lowerIsBetter {
				return cr, bounds[0].Errorf("%s is better when lower: use \"max\"", metric)
			}
		default:
			return cr, n.Errorf("give one of \"threshold\", \"min\" or \"max\"")
		}
		if t, ok := n.Field(v, "tool"); ok {
			s, err := t.Str()
			if err != nil {
				return cr, err
			}
			cr.Tool = s
		}
		if t, ok := n.Field(v, "tools"); ok {
			tools, err := toolNames(t)
			if err != nil {
				return cr, err
			}
			cr.Tools = tools
		}
		if st, ok := n.Field(v, "stat"); ok {
			s, err := st.Str()
			if err != nil {
				return cr, err
			}
			if s != "mean" && s != "p50" && s != "max" {
				return cr, st.Errorf("%q is not mean, p50 or max", s)
			}
			cr.Stat = s
		}
	default:
		return cr, n.Errorf("expected a threshold number or an object ({\"threshold\": X}, {\"max\": X} or {}), got %s", pyjson.Describe(n.V))
	}
	if metric == metricSingleToolUse && cr.Tool == "" {
		return cr, n.Errorf("needs the tool to look for: {\"tool\": \"get_weather\", \"threshold\": 1}")
	}
	if !cr.Informational {
		cr.Fields = map[string]any{"threshold": cr.Threshold}
		if cr.Max {
			cr.Fields = map[string]any{"max": cr.Threshold}
		}
		if cr.Tool != "" {
			cr.Fields["tool"] = cr.Tool
		}
		if cr.Tools != nil {
			cr.Fields["tools"] = cr.Tools
		}
		if spec.hasStat {
			cr.Fields["stat"] = cr.Stat
		}
	}
	return cr, nil
}
