package scoring

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigIsADKs(t *testing.T) {
	cfg := DefaultConfig()
	if got := cfg.Metrics(); !reflect.DeepEqual(got, []string{ToolTrajectoryAvgScore, ResponseMatchScore}) {
		t.Fatalf("metrics %v", got)
	}
	tt, rm := cfg.Criteria[0], cfg.Criteria[1]
	if tt.Threshold != 1.0 || tt.MatchType != Exact || tt.IgnoreArgs || rm.Threshold != 0.8 {
		t.Fatalf("criteria %+v %+v", tt, rm)
	}
	if cfg.Adkproxy.CustomTimeout != 60*time.Second || cfg.Adkproxy.Prices["gemini-2.5-flash"].Output != 2.50 {
		t.Fatalf("settings %+v", cfg.Adkproxy)
	}
}

func TestParseConfigCriteriaForms(t *testing.T) {
	cfg, err := ParseConfig("cfg/test_config.json", []byte(`{
	  "criteria": {
	    "response_match_score": 0.7,
	    "tool_trajectory_avg_score": {"threshold": 0.9, "matchType": " in-order ", "ignoreArgs": true, "note": "extra fields are kept"}
	  }}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Metrics(); !reflect.DeepEqual(got, []string{ResponseMatchScore, ToolTrajectoryAvgScore}) {
		t.Fatalf("file order lost: %v", got)
	}
	tt := cfg.Criteria[1]
	if tt.Threshold != 0.9 || tt.MatchType != InOrder || !tt.IgnoreArgs {
		t.Fatalf("criterion %+v", tt)
	}
	want := map[string]any{"threshold": 0.9, "matchType": " in-order ", "ignoreArgs": true, "note": "extra fields are kept"}
	if !reflect.DeepEqual(tt.Fields, want) {
		t.Fatalf("fields %v, want %v", tt.Fields, want)
	}
	if cfg.Dir != "cfg" || cfg.File != "cfg/test_config.json" {
		t.Fatalf("file %q dir %q", cfg.File, cfg.Dir)
	}
	for in, want := range map[string]MatchType{
		`"EXACT"`: Exact, `"exact"`: Exact, `"In_Order"`: InOrder, `"any order"`: AnyOrder, `"ANY-ORDER"`: AnyOrder,
		`0`: Exact, `1`: InOrder, `2`: AnyOrder, `2.0`: AnyOrder,
	} {
		cfg, err := ParseConfig("c.json", []byte(`{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": `+in+`}}}`))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := cfg.Criteria[0].MatchType; got != want {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}

func TestParseConfigErrorsNameFileAndField(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "FUZZY"}}}`,
			`eval_config.json: criteria.tool_trajectory_avg_score.match_type: "FUZZY" is not EXACT, IN_ORDER or ANY_ORDER`},
		{`{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": 5}}}`,
			`eval_config.json: criteria.tool_trajectory_avg_score.match_type: 5 is not EXACT, IN_ORDER or ANY_ORDER (0, 1 or 2)`},
		{`{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "matchType": true}}}`,
			`eval_config.json: criteria.tool_trajectory_avg_score.matchType: true is not EXACT, IN_ORDER or ANY_ORDER`},
		{`{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": "yes"}}}`,
			`eval_config.json: criteria.tool_trajectory_avg_score.ignore_args: expected true or false, got the string "yes"`},
		{`{"criteria": {"tool_trajectory_avg_score": {"match_type": "EXACT"}}}`,
			`eval_config.json: criteria.tool_trajectory_avg_score.threshold: missing: a criterion object needs a threshold`},
		{`{"criteria": {"response_match_score": "0.8"}}`,
			`eval_config.json: criteria.response_match_score: expected a threshold number or a criterion object, got the string "0.8"`},
		{`{"criteria": {"tool_trajectory_score": 1}}`,
			`eval_config.json: criteria.tool_trajectory_score: unknown metric; known ADK metrics: final_response_match_v2, hallucinations_v1,`},
		{`{"criteria": {"trajectory_f1": 0.8}}`,
			`eval_config.json: criteria.trajectory_f1: trajectory_f1 is adkproxy's metric, not ADK's: put it under "adkproxy": {"criteria": …}`},
		{`{"adkproxy": {"criteria": {"trajectory_f2": 0.8}}}`,
			`eval_config.json: adkproxy.criteria.trajectory_f2: unknown metric; known adkproxy metrics: agent_handoffs, cache_hit_rate, cached_tokens, candidates_tokens, context_saturation, cost_usd, grounding_utilization, latency_call_ms, latency_invocation_ms, output_density, prompt_tokens, reasoning_ratio, sandbox_usage, single_tool_use, thinking_ratio, thoughts_tokens, tool_calls, tool_error_rate, tool_latency_ms, tool_success_rate, tool_use_tokens, total_tokens, trajectory_f1, trajectory_precision, trajectory_recall, unique_tools`},
		{`{"adkproxy": {"criteria": {"response_match_score": 0.8}}}`,
			`eval_config.json: adkproxy.criteria.response_match_score: response_match_score is ADK's metric: put it under the top-level "criteria"`},
		{`{"adkproxy": {"criteria": {"cost_usd": 0.05}}}`,
			`eval_config.json: adkproxy.criteria.cost_usd: cost_usd is better when lower: write {"max": 0.05} (a bare number is a minimum)`},
		{`{"adkproxy": {"criteria": {"total_tokens": {"threshold": 10}}}}`,
			`eval_config.json: adkproxy.criteria.total_tokens.threshold: total_tokens is better when lower: use "max"`},
		{`{"adkproxy": {"criteria": {"trajectory_f1": {"min": 0.5, "max": 0.9}}}}`,
			`eval_config.json: adkproxy.criteria.trajectory_f1: give one of "threshold", "min" or "max"`},
		{`{"adkproxy": {"criteria": {"trajectory_f1": {"treshold": 0.5}}}}`,
			`eval_config.json: adkproxy.criteria.trajectory_f1.treshold: unknown key; known keys: max, min, threshold`},
		{`{"adkproxy": {"criteria": {"single_tool_use": 1}}}`,
			`eval_config.json: adkproxy.criteria.single_tool_use: needs the tool to look for: {"tool": "get_weather", "threshold": 1}`},
		{`{"adkproxy": {"criteria": {"latency_call_ms": {"max": 100, "stat": "p99"}}}}`,
			`eval_config.json: adkproxy.criteria.latency_call_ms.stat: "p99" is not mean, p50 or max`},
		{`{"adkproxy": {"criterias": {}}}`,
			`eval_config.json: adkproxy.criterias: unknown key; known keys: adk_version, arg_matchers, checks, criteria, custom_timeout_s, llm_metrics, prices, report_run_metrics`},
		{`{"adkproxy": {"arg_matchers": {"get_weather": {"city": "fuzzy"}}}}`,
			`eval_config.json: adkproxy.arg_matchers.get_weather.city: "fuzzy" is not a matcher: use "exact", "ignore", "subset", "superset", {"regex": PATTERN} or {"tolerance": NUMBER}`},
		{`{"adkproxy": {"arg_matchers": {"get_weather": {"city": {"regex": "("}}}}}`,
			"eval_config.json: adkproxy.arg_matchers.get_weather.city.regex: bad pattern: error parsing regexp: missing closing ): `(`"},
		{`{"adkproxy": {"arg_matchers": {"get_weather": {"temp": {"tolerance": -1}}}}}`,
			`eval_config.json: adkproxy.arg_matchers.get_weather.temp.tolerance: must be a finite number ≥ 0, got -1`},
		{`{"adkproxy": {"prices": {"my-model": {"input": 1}}}}`,
			`eval_config.json: adkproxy.prices.my-model.output: missing (USD per 1M tokens)`},
		{`{"adkproxy": {"custom_timeout_s": 0}}`,
			`eval_config.json: adkproxy.custom_timeout_s: must be a number of seconds > 0, got 0`},
		{`{"critera": {"response_match_score": 0.8}}`,
			`eval_config.json: critera: unknown key; known keys: adkproxy, criteria, customMetrics, custom_metrics, userSimulatorConfig, user_simulator_config`},
		{`{"criteria": {}}`,
			`eval_config.json: no criteria: nothing to score (ADK's default criteria apply only when there is no config file)`},
		{`{"criteria": {"response_match_score": 0.8}, "custom_metrics": {"m": {"command": ["true"]}}}`,
			`eval_config.json: custom_metrics.m: no criteria.m entry gives its threshold (ADK would ignore the metric)`},
		{`{"criteria": {"m": 0.8}, "custom_metrics": {"m": {"code_config": {"name": "a.b", "args": [1]}}}}`,
			`eval_config.json: custom_metrics.m.code_config.args: not allowed (ADK rejects code_config.args for custom metrics)`},
		{`{"criteria": {"m": 0.8}, "custom_metrics": {"m": {"description": "no way to compute"}}}`,
			`eval_config.json: custom_metrics.m: needs "command" (an argv list adkproxy runs) or code_config.name (ADK's Python function)`},
		{`{"criteria": {"m": 0.8}, "custom_metrics": {"m": {"command": []}}}`,
			`eval_config.json: custom_metrics.m.command: empty: give the program and its arguments`},
		{"{\n  \"criteria\": {\n    \"response_match_score\": 0.8,\n  }\n}",
			`eval_config.json:4:3: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{`[1]`, `eval_config.json: expected an object, got a list`},
	} {
		_, err := ParseConfig("eval_config.json", []byte(tc.json))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.json, err, tc.want)
		}
	}
}

func TestLoadConfigExampleFile(t *testing.T) {
	path := filepath.Join("testdata", "eval_config.json")
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ToolTrajectoryAvgScore, ResponseMatchScore, "final_response_match_v2", "mentions_city",
		metricTrajectoryF1, metricSingleToolUse, metricCostUSD, metricLatencyInvocationMS, metricTotalTokens}
	if got := cfg.Metrics(); !reflect.DeepEqual(got, want) {
		t.Fatalf("metrics %v", got)
	}
	if cfg.Dir != "testdata" {
		t.Errorf("dir %q", cfg.Dir)
	}
	cm := cfg.CustomMetrics["mentions_city"]
	if !reflect.DeepEqual(cm.Command, []string{"sh", "custom_metric.sh", "mentions_city"}) || cm.CodeConfig != "metrics.mentions_city" {
		t.Errorf("custom metric %+v", cm)
	}
	s := cfg.Adkproxy
	if s.CustomTimeout != 10*time.Second || s.ReportRunMetrics {
		t.Errorf("settings %+v", s)
	}
	byName := map[string]Criterion{}
	for _, c := range s.Criteria {
		byName[c.Metric] = c
	}
	if c := byName[metricCostUSD]; !c.Max || c.Threshold != 0.05 || c.Informational || !reflect.DeepEqual(c.Fields, map[string]any{"max": 0.05}) {
		t.Errorf("cost %+v", c)
	}
	if c := byName[metricLatencyInvocationMS]; !c.Max || c.Threshold != 2000 || c.Stat != "p50" {
		t.Errorf("latency %+v", c)
	}
	if c := byName[metricTotalTokens]; !c.Informational || c.Fields != nil {
		t.Errorf("total tokens %+v", c)
	}
	if c := byName[metricSingleToolUse]; c.Tool != "get_weather" || c.Threshold != 1 {
		t.Errorf("single tool %+v", c)
	}
	if am := s.ArgMatchers.lookup("get_weather", "city"); am.Kind != "regex" || am.Pattern.String() != "^(Paris|Tokyo)$" {
		t.Errorf("matcher %+v", am)
	}
	if len(s.Prices) != len(DefaultPrices()) || s.Prices["gemini-2.5-flash"].CachedInput != 0.03 {
		t.Errorf("prices %+v", s.Prices)
	}

	_, err = LoadConfig(filepath.Join("testdata", "no_such_config.json"))
	if err == nil || !strings.Contains(err.Error(), "no_such_config.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseConfigReportRunMetrics(t *testing.T) {
	cfg, err := ParseConfig("c.json", []byte(`{"adkproxy": {"report_run_metrics": true, "criteria": {"cost_usd": {"max": 1}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Metrics()
	if len(got) != len(RunMetrics()) || got[0] != metricCostUSD {
		t.Fatalf("metrics %v", got)
	}
	for _, c := range cfg.evaluated()[1:] {
		if !c.Informational || c.Metric == metricCostUSD {
			t.Fatalf("criterion %+v", c)
		}
	}
}

func TestParseConfigPricesAndArgMatchers(t *testing.T) {
	cfg, err := ParseConfig("c.json", []byte(`{"adkproxy": {"criteria": {"trajectory_recall": 1},
	  "prices": {"gemini-2.5-pro": {"input": 1, "output": 8, "long_context": {"above": 1000, "input": 2, "cached_input": 0.5, "output": 16}},
	             "*": {"input": 0.5, "output": 1}},
	  "arg_matchers": {"search": "ignore", "*": {"request_id": "ignore"}, "get_weather": {"temp": {"tolerance": 0.5}, "*": "superset"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Adkproxy.Prices["gemini-2.5-pro"]
	if p.Input != 1 || p.CachedInput != 1 || p.Output != 8 || p.LongContext == nil || p.LongContext.Above != 1000 || p.LongContext.CachedInput != 0.5 {
		t.Fatalf("price %+v %+v", p, p.LongContext)
	}
	am := cfg.Adkproxy.ArgMatchers
	for _, tc := range []struct{ tool, arg, want string }{
		{"search", "q", "ignore"}, {"get_weather", "temp", "tolerance"}, {"get_weather", "city", "superset"},
		{"other", "request_id", "ignore"}, {"other", "x", "exact"}, {"get_weather", "request_id", "superset"},
	} {
		if got := am.lookup(tc.tool, tc.arg).Kind; got != tc.want {
			t.Errorf("%s.%s: %s, want %s", tc.tool, tc.arg, got, tc.want)
		}
	}
}
