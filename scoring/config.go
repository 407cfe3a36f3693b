// The eval config (ADK's EvalConfig plus adkproxy's settings): loading and
// parsing the file; criteria, custom metrics and prices are parsed beside
// their own code (criteria.go, custom.go, prices.go).

package scoring

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	for _, name := range slices.Sorted(maps.Keys(cfg.CustomMetrics)) {
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
