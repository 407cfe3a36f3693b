package scoring

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Config is ADK's EvalConfig (test_config.json, --config_file_path) plus
// adkproxy's own settings under a top-level "adkproxy" object, which ADK
// ignores, so one file serves both:
//
//	{
//	  "criteria": {
//	    "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER", "ignore_args": false},
//	    "response_match_score": 0.8,
//	    "my_metric": 0.5
//	  },
//	  "custom_metrics": {
//	    "my_metric": {"command": ["python3", "metrics/my_metric.py"], "timeout_s": 30,
//	                  "code_config": {"name": "metrics.my_metric"}, "description": "…"}
//	  },
//	  "adkproxy": {
//	    "criteria": {
//	      "trajectory_f1": 0.8,
//	      "single_tool_use": {"tool": "get_weather", "threshold": 1},
//	      "cost_usd": {"max": 0.05},
//	      "latency_invocation_ms": {"max": 2000, "stat": "p50"},
//	      "total_tokens": {}
//	    },
//	    "arg_matchers": {"get_weather": {"city": "exact", "date": "ignore", "query": {"regex": "^par"},
//	                                     "temp": {"tolerance": 0.5}, "filters": "subset"}},
//	    "prices": {"gemini-2.5-flash": {"input": 0.30, "cached_input": 0.03, "output": 2.50}},
//	    "custom_timeout_s": 60,
//	    "report_run_metrics": true
//	  }
//	}
//
// criteria (ADK): metric name → a number (the threshold) or an object with
// "threshold" and the metric's own fields. Computed here:
// tool_trajectory_avg_score (match_type EXACT, IN_ORDER or ANY_ORDER, or
// 0, 1, 2, spelt loosely as newer ADK accepts: strip, upper case, "-" and
// " " → "_"; ignore_args, newer ADK's) and response_match_score. ADK's
// LLM-judged and Vertex AI
// metrics are accepted and reported NOT_EVALUATED with the reason. Keys are
// read in snake_case or camelCase (matchType), as pydantic does. Only
// metrics named in criteria run, as in ADK, and ADK's default
// (DefaultConfig) applies only when there is no configuration at all.
//
// custom_metrics (ADK): metric name → how to compute it; the metric also
// needs a criteria entry for its threshold (ADK's rule; adkproxy rejects a
// custom metric without one instead of ignoring it). ADK runs the Python
// function code_config.name; adkproxy runs "command" (an argv list, run in
// the configuration file's folder) in any language: see CustomMetric for
// the protocol. A custom metric with only code_config is reported
// NOT_EVALUATED.
//
// adkproxy.criteria: adkproxy's metrics (KnownMetrics; TrajectoryF1 and
// RunMetrics describe them), each a number
// (minimum score), {"threshold": X} or {"min": X} (minimum), {"max": X}
// (maximum: PASSED when the score is ≤ X; required for cost-, token- and
// latency-like metrics, where a bare number would be a minimum), or {} (no
// threshold: reported for information only). single_tool_use also takes
// "tool"; latency_call_ms and latency_invocation_ms take "stat": "mean"
// (default), "p50" or "max", the statistic that becomes the score.
//
// adkproxy.arg_matchers: see ArgMatchers; they apply to adkproxy's
// trajectory metrics only, never to ADK's.
//
// adkproxy.prices: model → Price, replacing the DefaultPrices entry of that
// model (or adding one; "*" prices every model not listed). cached_input
// defaults to input.
//
// adkproxy.custom_timeout_s: how long a custom metric command may run
// (default 60 seconds; "timeout_s" of a custom metric overrides it).
//
// adkproxy.report_run_metrics: when true, every run metric not configured
// in adkproxy.criteria is also reported, without a threshold.
//
// Unknown top-level keys and unknown keys inside "adkproxy" are errors, so
// that a misspelt "criteria" cannot silently score nothing.
type Config struct {
	// File names the configuration in errors; "" for DefaultConfig.
	File string
	// Dir is where custom metric commands run: the configuration's folder.
	Dir string
	// Criteria are ADK's criteria in file order, custom metrics included.
	Criteria []Criterion
	// CustomMetrics are ADK's custom_metrics, by metric name.
	CustomMetrics map[string]CustomMetric
	// Adkproxy holds the settings under the top-level "adkproxy" key.
	Adkproxy Settings
}

// Settings are adkproxy's own settings.
type Settings struct {
	// Criteria are adkproxy's metrics (KnownMetrics), in file order.
	Criteria    []Criterion
	ArgMatchers ArgMatchers
	// Prices are DefaultPrices with the configured ones applied.
	Prices map[string]Price
	// CustomTimeout bounds each custom metric command; default 60 s.
	CustomTimeout time.Duration
	// ReportRunMetrics adds every run metric not in Criteria, for
	// information (no threshold).
	ReportRunMetrics bool
}

// MatchType is ToolTrajectoryCriterion.MatchType; the numbers are ADK's.
type MatchType int

const (
	Exact    MatchType = 0
	InOrder  MatchType = 1
	AnyOrder MatchType = 2
)

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

// CustomMetric is a custom_metrics entry: a metric in any language. Its
// "command" (an argv list, run in the configuration file's folder, with
// ADKPROXY_METRIC and ADKPROXY_CASE in its environment) runs once per case
// and receives on stdin the arguments ADK passes to a custom metric
// function (newer ADK's four, conversation_scenario included), with ADK's
// field names and Invocation JSON (snake_case, as ADK writes it):
//
//	{"eval_metric": {"metric_name": "my_metric", "threshold": 0.5,
//	                 "criterion": {"threshold": 0.5, …}, "custom_function_path": "pkg.fn" | null},
//	 "actual_invocations": [{"invocation_id": "…",
//	                         "user_content": {"parts": [{"text": "…"}], "role": "user"},
//	                         "final_response": {"parts": [{"text": "…"}], "role": "model"} | null,
//	                         "intermediate_data": {"tool_uses": [{"id"?, "name", "args"}],
//	                                               "tool_responses": [{"id"?, "name", "response"}],
//	                                               "intermediate_responses": [["agent", [{"text": "…"}]]]},
//	                         "creation_timestamp": 0}],
//	 "expected_invocations": [ … ] | null,
//	 "conversation_scenario": { … } | null}
//
// and prints ADK's EvaluationResult on stdout:
//
//	{"overall_score": 0.75 | null, "overall_eval_status": 1,
//	 "per_invocation_results": [{"score": 1.0, "eval_status": 1, "reason"?: "…"}],
//	 "reason"?: "…", "details"?: {…}}
//
// Statuses are ADK's numbers (1 PASSED, 2 FAILED, 3 NOT_EVALUATED) or
// their names; a missing status is derived from the score and the
// threshold, as for every other metric. camelCase keys are accepted too.
// "reason" and "details" are adkproxy's additions for explaining a score.
// A command that cannot start, exits non-zero, prints anything else, or
// runs longer than its timeout (adkproxy.custom_timeout_s, default 60 s;
// "timeout_s" of the metric) leaves the metric NOT_EVALUATED with the
// reason; the run goes on. On timeout the command's whole process group
// is killed.
type CustomMetric struct {
	Name string
	// Command is the argv run for each case (adkproxy).
	Command []string
	// CodeConfig is code_config.name, the Python function ADK would call.
	CodeConfig  string
	Description string
	MetricInfo  map[string]any
	// Timeout overrides Settings.CustomTimeout when > 0 ("timeout_s").
	Timeout time.Duration
}

// DefaultCustomTimeout is how long a custom metric command may run unless
// configured otherwise.
const DefaultCustomTimeout = 60 * time.Second

// DefaultConfig is ADK's evaluation default when there is no config file:
// {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}.
func DefaultConfig() *Config {
	return &Config{
		Dir: ".",
		Criteria: []Criterion{
			{Metric: ToolTrajectoryAvgScore, Threshold: 1.0, MatchType: Exact, Fields: map[string]any{"threshold": 1.0}},
			{Metric: ResponseMatchScore, Threshold: 0.8, Fields: map[string]any{"threshold": 0.8}},
		},
		CustomMetrics: map[string]CustomMetric{},
		Adkproxy:      Settings{Prices: DefaultPrices(), CustomTimeout: DefaultCustomTimeout},
	}
}

// LoadConfig reads an eval config file (see Config).
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig reads an eval config; name is used in errors, which name the
// field too: `eval_config.json: criteria.tool_trajectory_avg_score.match_type:
// "FUZZY" is not EXACT, IN_ORDER or ANY_ORDER`. Custom metric commands run
// in name's folder.
func ParseConfig(name string, data []byte) (*Config, error) {
	v, err := decodeJSON(name, data)
	if err != nil {
		return nil, err
	}
	root := node{file: name, v: v}
	o, err := root.object()
	if err != nil {
		return nil, err
	}
	if err := root.checkKeys(o, "criteria", "custom_metrics", "customMetrics", "user_simulator_config", "userSimulatorConfig", "adkproxy"); err != nil {
		return nil, err
	}
	cfg := &Config{File: name, Dir: filepath.Dir(name), CustomMetrics: map[string]CustomMetric{},
		Adkproxy: Settings{Prices: DefaultPrices(), CustomTimeout: DefaultCustomTimeout}}

	if n, ok := root.pyField(o, "custom_metrics"); ok && n.v != nil {
		if err := cfg.parseCustomMetrics(n); err != nil {
			return nil, err
		}
	}
	if n, ok := root.field(o, "criteria"); ok && n.v != nil {
		co, err := n.object()
		if err != nil {
			return nil, err
		}
		for _, metric := range co.keys {
			c := n.at(metric)
			c.v = co.vals[metric]
			cr, err := cfg.parseADKCriterion(metric, c)
			if err != nil {
				return nil, err
			}
			cfg.Criteria = append(cfg.Criteria, cr)
		}
	}
	for _, name := range sortedKeysOf(cfg.CustomMetrics) {
		if cfg.criterion(name) == nil {
			n := root.at("custom_metrics").at(name)
			return nil, n.errorf("no criteria.%s entry gives its threshold (ADK would ignore the metric)", name)
		}
	}
	if n, ok := root.field(o, "adkproxy"); ok {
		if err := cfg.parseSettings(n); err != nil {
			return nil, err
		}
	}
	if len(cfg.Criteria) == 0 && len(cfg.Adkproxy.Criteria) == 0 && !cfg.Adkproxy.ReportRunMetrics {
		return nil, root.errorf("no criteria: nothing to score (ADK's default criteria apply only when there is no config file)")
	}
	return cfg, nil
}

func (cfg *Config) criterion(metric string) *Criterion {
	for i := range cfg.Criteria {
		if cfg.Criteria[i].Metric == metric {
			return &cfg.Criteria[i]
		}
	}
	return nil
}

// Metrics lists the names of the metrics Evaluate reports for each case,
// in order: ADK's criteria, adkproxy's criteria, then the run metrics added
// by report_run_metrics.
func (cfg *Config) Metrics() []string {
	var out []string
	for _, c := range cfg.evaluated() {
		out = append(out, c.Metric)
	}
	return out
}

// evaluated is every criterion Evaluate computes, in report order.
func (cfg *Config) evaluated() []Criterion {
	out := append([]Criterion(nil), cfg.Criteria...)
	out = append(out, cfg.Adkproxy.Criteria...)
	if cfg.Adkproxy.ReportRunMetrics {
		seen := map[string]bool{}
		for _, c := range out {
			seen[c.Metric] = true
		}
		for _, m := range runMetricNames {
			if !seen[m] {
				out = append(out, Criterion{Metric: m, Informational: true, Adkproxy: true, Stat: "mean"})
			}
		}
	}
	return out
}

func (cfg *Config) parseADKCriterion(metric string, n node) (Criterion, error) {
	_, custom := cfg.CustomMetrics[metric]
	if !custom {
		if _, ok := adkMetrics[metric]; !ok && !isMultiTurnMetric(metric) {
			if _, ours := adkproxyMetrics[metric]; ours {
				return Criterion{}, n.errorf("%s is adkproxy's metric, not ADK's: put it under \"adkproxy\": {\"criteria\": …} (ADK would reject it here)", metric)
			}
			return Criterion{}, n.errorf("unknown metric; known ADK metrics: %s; or declare it in custom_metrics", strings.Join(sortedKeysOf(adkMetrics), ", "))
		}
	}
	cr := Criterion{Metric: metric}
	switch v := n.v.(type) {
	case json.Number:
		f, err := n.number()
		if err != nil {
			return cr, err
		}
		cr.Threshold = f
		cr.Fields = map[string]any{"threshold": f}
		return cr, nil
	case *object:
		th, ok := n.field(v, "threshold")
		if !ok {
			return cr, th.errorf("missing: a criterion object needs a threshold")
		}
		f, err := th.number()
		if err != nil {
			return cr, err
		}
		cr.Threshold = f
		cr.Fields = map[string]any{}
		for _, k := range v.keys {
			cr.Fields[k] = plain(v.vals[k])
		}
		cr.Fields["threshold"] = f
		if metric == ToolTrajectoryAvgScore && !custom {
			if mt, ok := n.pyField(v, "match_type"); ok {
				if cr.MatchType, err = parseMatchType(mt); err != nil {
					return cr, err
				}
			}
			if ia, ok := n.pyField(v, "ignore_args"); ok {
				if cr.IgnoreArgs, err = ia.boolean(); err != nil {
					return cr, err
				}
			}
		}
		return cr, nil
	}
	return cr, n.errorf("expected a threshold number or a criterion object, got %s", describe(n.v))
}

// parseMatchType accepts EXACT, IN_ORDER, ANY_ORDER in ADK's normalised
// spellings ("in-order", " any order ") and the numbers 0, 1, 2.
func parseMatchType(n node) (MatchType, error) {
	switch v := n.v.(type) {
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
		return 0, n.errorf("%q is not EXACT, IN_ORDER or ANY_ORDER", v)
	case json.Number:
		f, err := v.Float64()
		if err == nil && f == math.Trunc(f) && f >= 0 && f <= 2 {
			return MatchType(f), nil
		}
		return 0, n.errorf("%s is not EXACT, IN_ORDER or ANY_ORDER (0, 1 or 2)", v)
	}
	return 0, n.errorf("%s is not EXACT, IN_ORDER or ANY_ORDER", describe(n.v))
}

func (cfg *Config) parseCustomMetrics(n node) error {
	o, err := n.object()
	if err != nil {
		return err
	}
	for _, name := range o.keys {
		mn := n.at(name)
		mn.v = o.vals[name]
		mo, err := mn.object()
		if err != nil {
			return err
		}
		if err := mn.checkKeys(mo, "code_config", "codeConfig", "command", "metric_info", "metricInfo", "description", "timeout_s"); err != nil {
			return err
		}
		cm := CustomMetric{Name: name}
		if cc, ok := mn.pyField(mo, "code_config"); ok && cc.v != nil {
			co, err := cc.object()
			if err != nil {
				return err
			}
			if a, ok := cc.field(co, "args"); ok && a.v != nil {
				return a.errorf("not allowed (ADK rejects code_config.args for custom metrics)")
			}
			if nn, ok := cc.field(co, "name"); ok {
				if cm.CodeConfig, err = nn.str(); err != nil {
					return err
				}
			}
		}
		if c, ok := mn.field(mo, "command"); ok {
			l, err := c.list()
			if err != nil {
				return err
			}
			if len(l) == 0 {
				return c.errorf("empty: give the program and its arguments, e.g. [\"python3\", \"my_metric.py\"]")
			}
			for i := range l {
				s, err := c.elem(l, i).str()
				if err != nil {
					return err
				}
				cm.Command = append(cm.Command, s)
			}
		}
		if cm.Command == nil && cm.CodeConfig == "" {
			return mn.errorf("needs \"command\" (an argv list adkproxy runs) or code_config.name (ADK's Python function)")
		}
		if d, ok := mn.field(mo, "description"); ok {
			if cm.Description, err = d.optStr(); err != nil {
				return err
			}
		}
		if mi, ok := mn.pyField(mo, "metric_info"); ok && mi.v != nil {
			if _, err := mi.object(); err != nil {
				return err
			}
			cm.MetricInfo = plain(mi.v).(map[string]any)
		}
		if t, ok := mn.field(mo, "timeout_s"); ok {
			if cm.Timeout, err = seconds(t); err != nil {
				return err
			}
		}
		cfg.CustomMetrics[name] = cm
	}
	return nil
}

func seconds(n node) (time.Duration, error) {
	f, err := n.number()
	if err != nil {
		return 0, err
	}
	if f <= 0 || f > 1e6 {
		return 0, n.errorf("must be a number of seconds > 0, got %g", f)
	}
	return time.Duration(f * float64(time.Second)), nil
}

func (cfg *Config) parseSettings(n node) error {
	o, err := n.object()
	if err != nil {
		return err
	}
	if err := n.checkKeys(o, "criteria", "arg_matchers", "prices", "custom_timeout_s", "report_run_metrics"); err != nil {
		return err
	}
	s := &cfg.Adkproxy
	if c, ok := n.field(o, "criteria"); ok {
		co, err := c.object()
		if err != nil {
			return err
		}
		for _, metric := range co.keys {
			mn := c.at(metric)
			mn.v = co.vals[metric]
			cr, err := parseAdkproxyCriterion(metric, mn)
			if err != nil {
				return err
			}
			s.Criteria = append(s.Criteria, cr)
		}
	}
	if a, ok := n.field(o, "arg_matchers"); ok {
		if s.ArgMatchers, err = parseArgMatchers(a); err != nil {
			return err
		}
	}
	if p, ok := n.field(o, "prices"); ok {
		po, err := p.object()
		if err != nil {
			return err
		}
		for _, model := range po.keys {
			mn := p.at(model)
			mn.v = po.vals[model]
			price, err := parsePrice(mn)
			if err != nil {
				return err
			}
			s.Prices[model] = price
		}
	}
	if t, ok := n.field(o, "custom_timeout_s"); ok {
		if s.CustomTimeout, err = seconds(t); err != nil {
			return err
		}
	}
	if r, ok := n.field(o, "report_run_metrics"); ok {
		if s.ReportRunMetrics, err = r.boolean(); err != nil {
			return err
		}
	}
	return nil
}

func parseAdkproxyCriterion(metric string, n node) (Criterion, error) {
	spec, ok := adkproxyMetrics[metric]
	if !ok {
		if _, adk := adkMetrics[metric]; adk {
			return Criterion{}, n.errorf("%s is ADK's metric: put it under the top-level \"criteria\"", metric)
		}
		return Criterion{}, n.errorf("unknown metric; known adkproxy metrics: %s", strings.Join(KnownMetrics(), ", "))
	}
	cr := Criterion{Metric: metric, Adkproxy: true, Stat: "mean"}
	switch v := n.v.(type) {
	case json.Number:
		if spec.lowerIsBetter {
			return cr, n.errorf("%s is better when lower: write {\"max\": %s} (a bare number is a minimum)", metric, v)
		}
		f, err := n.number()
		if err != nil {
			return cr, err
		}
		cr.Threshold = f
	case *object:
		known := []string{"threshold", "min", "max"}
		if metric == SingleToolUse {
			known = append(known, "tool")
		}
		if spec.hasStat {
			known = append(known, "stat")
		}
		if err := n.checkKeys(v, known...); err != nil {
			return cr, err
		}
		var bounds []node
		for _, k := range []string{"threshold", "min", "max"} {
			if b, ok := n.field(v, k); ok {
				bounds = append(bounds, b)
			}
		}
		switch len(bounds) {
		case 0:
			cr.Informational = true
		case 1:
			f, err := bounds[0].number()
			if err != nil {
				return cr, err
			}
			cr.Threshold = f
			cr.Max = strings.HasSuffix(bounds[0].path, ".max")
			if !cr.Max && spec.lowerIsBetter {
				return cr, bounds[0].errorf("%s is better when lower: use \"max\"", metric)
			}
		default:
			return cr, n.errorf("give one of \"threshold\", \"min\" or \"max\"")
		}
		if t, ok := n.field(v, "tool"); ok {
			s, err := t.str()
			if err != nil {
				return cr, err
			}
			cr.Tool = s
		}
		if st, ok := n.field(v, "stat"); ok {
			s, err := st.str()
			if err != nil {
				return cr, err
			}
			if s != "mean" && s != "p50" && s != "max" {
				return cr, st.errorf("%q is not mean, p50 or max", s)
			}
			cr.Stat = s
		}
	default:
		return cr, n.errorf("expected a threshold number or an object ({\"threshold\": X}, {\"max\": X} or {}), got %s", describe(n.v))
	}
	if metric == SingleToolUse && cr.Tool == "" {
		return cr, n.errorf("needs the tool to look for: {\"tool\": \"get_weather\", \"threshold\": 1}")
	}
	if !cr.Informational {
		cr.Fields = map[string]any{"threshold": cr.Threshold}
		if cr.Max {
			cr.Fields = map[string]any{"max": cr.Threshold}
		}
		if cr.Tool != "" {
			cr.Fields["tool"] = cr.Tool
		}
		if spec.hasStat {
			cr.Fields["stat"] = cr.Stat
		}
	}
	return cr, nil
}

func parsePrice(n node) (Price, error) {
	o, err := n.object()
	if err != nil {
		return Price{}, err
	}
	if err := n.checkKeys(o, "input", "cached_input", "output", "long_context"); err != nil {
		return Price{}, err
	}
	var p Price
	get := func(o *object, n node, key string, required bool, dst *float64) error {
		c, ok := n.field(o, key)
		if !ok {
			if required {
				return c.errorf("missing (USD per 1M tokens)")
			}
			return nil
		}
		f, err := c.number()
		if err != nil {
			return err
		}
		if f < 0 || !finite(f) {
			return c.errorf("must be ≥ 0, got %g", f)
		}
		*dst = f
		return nil
	}
	if err := get(o, n, "input", true, &p.Input); err != nil {
		return p, err
	}
	p.CachedInput = p.Input
	if err := get(o, n, "cached_input", false, &p.CachedInput); err != nil {
		return p, err
	}
	if err := get(o, n, "output", true, &p.Output); err != nil {
		return p, err
	}
	if lc, ok := n.field(o, "long_context"); ok && lc.v != nil {
		lo, err := lc.object()
		if err != nil {
			return p, err
		}
		if err := lc.checkKeys(lo, "above", "input", "cached_input", "output"); err != nil {
			return p, err
		}
		l := &LongPrice{}
		var above float64
		if err := get(lo, lc, "above", true, &above); err != nil {
			return p, err
		}
		l.Above = int64(above)
		if err := get(lo, lc, "input", true, &l.Input); err != nil {
			return p, err
		}
		l.CachedInput = l.Input
		if err := get(lo, lc, "cached_input", false, &l.CachedInput); err != nil {
			return p, err
		}
		if err := get(lo, lc, "output", true, &l.Output); err != nil {
			return p, err
		}
		p.LongContext = l
	}
	return p, nil
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
