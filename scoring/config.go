// The eval config (ADK's EvalConfig plus adkproxy's settings): loading and
// parsing the file; criteria, custom metrics and prices are parsed beside
// their own code (criteria.go, custom.go, prices.go).

package scoring

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// Config is ADK's EvalConfig (test_config.json, --config_file_path) plus
// adkproxy's own settings under a top-level "adkproxy" object, which ADK
// ignores, so one file serves both. The file format — criteria, custom
// metrics, adkproxy's criteria, argument matchers, prices and the rules for
// thresholds — is documented once, for users, in docs/scoring.md ("The
// config file"). In code: Criterion, CustomMetric, knownMetrics,
// ArgMatchers, Price and DefaultConfig.
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
	// Judge, when set, computes ADK's LLM-judged metrics (IsJudged);
	// without it they are NOT_EVALUATED. Set by the caller, never read
	// from the file.
	Judge Judge
	// Python is the interpreter custom metrics given only by
	// code_config.name run in (adkproxy score --python); "" is
	// DefaultPython on PATH. Set by the caller, never read from the file.
	Python string
	// NoCode refuses every custom metric (NOT_EVALUATED, nothing run or
	// imported): for input that is not trusted; callers check RefuseCode
	// first to fail instead. Set by the caller (--no-code).
	NoCode bool
	// Vertex, when set, computes ADK's metrics that need Vertex AI's
	// evaluation service (IsVertex); without it they are NOT_EVALUATED.
	// Set by the caller.
	Vertex Judge
	// ModelEndpoint, when set, gives every custom metric (command or
	// Python function) a GOOGLE_GEMINI_BASE_URL whose calls are recorded
	// and replayed with the judge's. Set by the caller.
	ModelEndpoint ModelEndpoint
}

// Settings are adkproxy's own settings.
type Settings struct {
	// Criteria are adkproxy's metrics (knownMetrics), in file order.
	Criteria    []Criterion
	ArgMatchers ArgMatchers
	// Prices are DefaultPrices with the configured ones applied.
	Prices map[string]Price
	// CustomTimeout bounds each custom metric command; default 60 s.
	CustomTimeout time.Duration
	// ReportRunMetrics adds every run metric not in Criteria, for
	// information (no threshold).
	ReportRunMetrics bool
	// ADKVersion is the ADK release whose rules apply where releases
	// differ ("adk_version": "1.18"; score --adk-version overrides it):
	// stemming in response_match_score, the keys of the JSON result, the
	// rubric list in judge prompts, the invocations at a tool
	// confirmation. "" is the newest ADK adkproxy knows; ParseConfig
	// refuses a version it does not know.
	ADKVersion string
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
		Adkproxy:      Settings{Prices: DefaultPrices(), CustomTimeout: defaultCustomTimeout},
	}
}

// LoadConfig reads an eval config file (see Config).
func LoadConfig(path string) (*Config, error) {
	data, err := userfile.Read(path)
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
	root, err := pyjson.Decode(name, data)
	if err != nil {
		return nil, err
	}
	o, err := root.Object()
	if err != nil {
		return nil, err
	}
	if err := root.CheckKeys(o, "criteria", "custom_metrics", "customMetrics", "user_simulator_config", "userSimulatorConfig", "adkproxy"); err != nil {
		return nil, err
	}
	cfg := &Config{File: name, Dir: filepath.Dir(name), CustomMetrics: map[string]CustomMetric{},
		Adkproxy: Settings{Prices: DefaultPrices(), CustomTimeout: defaultCustomTimeout}}

	if n, ok := root.PyField(o, "custom_metrics"); ok && n.V != nil {
		if err := cfg.parseCustomMetrics(n); err != nil {
			return nil, err
		}
	}
	if n, ok := root.Field(o, "criteria"); ok && n.V != nil {
		co, err := n.Object()
		if err != nil {
			return nil, err
		}
		for _, metric := range co.Keys() {
			c := n.At(metric)
			c.V = co.Val(metric)
			cr, err := cfg.parseADKCriterion(metric, c)
			if err != nil {
				return nil, err
			}
			cfg.Criteria = append(cfg.Criteria, cr)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.CustomMetrics)) {
		if cfg.criterion(name) == nil {
			n := root.At("custom_metrics").At(name)
			return nil, n.Errorf("no criteria.%s entry gives its threshold (ADK would ignore the metric)", name)
		}
	}
	if n, ok := root.Field(o, "adkproxy"); ok {
		if err := cfg.parseSettings(n); err != nil {
			return nil, err
		}
	}
	if len(cfg.Criteria) == 0 && len(cfg.Adkproxy.Criteria) == 0 && !cfg.Adkproxy.ReportRunMetrics {
		return nil, root.Errorf("no criteria: nothing to score (ADK's default criteria apply only when there is no config file)")
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
		for _, m := range runMetricNames() {
			if !seen[m] {
				out = append(out, Criterion{Metric: m, Informational: true, Adkproxy: true, Stat: "mean"})
			}
		}
	}
	return out
}

func seconds(n pyjson.Value) (time.Duration, error) {
	f, err := n.Number()
	if err != nil {
		return 0, err
	}
	if f <= 0 || f > 1e6 {
		return 0, n.Errorf("must be a number of seconds > 0, got %g", f)
	}
	return time.Duration(f * float64(time.Second)), nil
}

func (cfg *Config) parseSettings(n pyjson.Value) error {
	o, err := n.Object()
	if err != nil {
		return err
	}
	if err := n.CheckKeys(o, "criteria", "llm_metrics", "arg_matchers", "prices", "custom_timeout_s", "report_run_metrics", "checks", "adk_version"); err != nil {
		return err
	}
	s := &cfg.Adkproxy
	if c, ok := n.Field(o, "criteria"); ok {
		co, err := c.Object()
		if err != nil {
			return err
		}
		for _, metric := range co.Keys() {
			mn := c.At(metric)
			mn.V = co.Val(metric)
			cr, err := parseAdkproxyCriterion(metric, mn)
			if err != nil {
				return err
			}
			s.Criteria = append(s.Criteria, cr)
		}
	}
	if l, ok := n.Field(o, "llm_metrics"); ok {
		if err := cfg.parseLLMMetrics(l); err != nil {
			return err
		}
	}
	if ch, ok := n.Field(o, "checks"); ok {
		if err := cfg.parseChecks(ch); err != nil {
			return err
		}
	}
	if a, ok := n.Field(o, "arg_matchers"); ok {
		if s.ArgMatchers, err = parseArgMatchers(a); err != nil {
			return err
		}
	}
	if p, ok := n.Field(o, "prices"); ok {
		po, err := p.Object()
		if err != nil {
			return err
		}
		for _, model := range po.Keys() {
			mn := p.At(model)
			mn.V = po.Val(model)
			price, err := parsePrice(mn)
			if err != nil {
				return err
			}
			s.Prices[model] = price
		}
	}
	if t, ok := n.Field(o, "custom_timeout_s"); ok {
		if s.CustomTimeout, err = seconds(t); err != nil {
			return err
		}
	}
	if r, ok := n.Field(o, "report_run_metrics"); ok {
		if s.ReportRunMetrics, err = r.Bool(); err != nil {
			return err
		}
	}
	if v, ok := n.Field(o, "adk_version"); ok {
		str, err := v.Str()
		if err != nil {
			return err
		}
		if _, err := adkversion.Parse(str); err != nil {
			return v.Errorf("%v", err)
		}
		s.ADKVersion = str
	}
	return nil
}

// adk is the ADK release whose rules apply (Settings.ADKVersion); a
// version set in code that does not parse is the newest.
func (cfg *Config) adk() adkversion.Version {
	v, _ := adkversion.Parse(cfg.Adkproxy.ADKVersion)
	return v
}
