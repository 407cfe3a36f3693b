package scoring

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// engRunCase is a recorded two-invocation session with hand-picked numbers:
//
//	inv 1: flash 100 ms {prompt 1000, cached 400, cand 50, thoughts 150, total 1200}
//	       flash 300 ms {prompt 1200, cached 1000, cand 30, total 1230}
//	inv 2: pro 1000 ms {prompt 250000, cand 100, thoughts 400, tool_use 50, total 250550}
//	       pro 20 ms, HTTP 429, no usage
//	       pro 600 ms {prompt 1000, cand 20, total 1020}
func engRunCase() Case {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	inv1 := Invocation{
		ToolCalls:   []cassettes.ToolCall{engCall("get_device_info", "device_id", "device_1")},
		ToolResults: []cassettes.ToolResult{{Name: "get_device_info", Response: map[string]any{"status": "OFF"}}},
		Steps: []Step{
			{Model: "gemini-2.5-flash", Status: 200, Latency: ms(100), Usage: Usage{Prompt: 1000, Cached: 400, Candidates: 50, Thoughts: 150, Total: 1200}},
			{Model: "gemini-2.5-flash-001", Status: 200, Latency: ms(300), Usage: Usage{Prompt: 1200, Cached: 1000, Candidates: 30, Total: 1230}},
		},
	}
	inv2 := Invocation{
		ToolCalls: []cassettes.ToolCall{engCall("transfer_to_agent", "agent_name", "kitchen_agent"), engCall("set_device_info", "status", "ON")},
		ToolResults: []cassettes.ToolResult{
			{Name: "set_device_info", Response: map[string]any{"error": "device offline"}},
			{Name: "check", Response: map[string]any{"status": "error"}},
			{Name: "check", Response: map[string]any{"status": "ok", "error": nil}},
			{Name: "transfer_to_agent", Response: map[string]any{}},
		},
		Steps: []Step{
			{Model: "gemini-2.5-pro", Status: 200, Latency: ms(1000), Usage: Usage{Prompt: 250000, Candidates: 100, Thoughts: 400, ToolUse: 50, Total: 250550}},
			{Model: "gemini-2.5-pro", Status: 429, Latency: ms(20)},
			{Model: "models/gemini-2.5-pro", Status: 200, Latency: ms(600), Usage: Usage{Prompt: 1000, Candidates: 20, Total: 1020}},
		},
	}
	return Case{ID: "run", Actual: []Invocation{inv1, inv2}}
}

func TestRunMetricsHandComputed(t *testing.T) {
	cr, ms := engEval(t, `{"adkproxy": {"report_run_metrics": true}}`, engRunCase())
	if len(cr.Case.Actual) != 2 || len(ms) != len(RunMetrics()) {
		t.Fatalf("%d metrics", len(ms))
	}
	for _, tc := range []struct {
		metric  string
		overall float64
		per     []float64
	}{
		{metricPromptTokens, 253200, []float64{2200, 251000}},
		{metricCandidatesTokens, 200, []float64{80, 120}},
		{metricCachedTokens, 1400, []float64{1400, 0}},
		{metricThoughtsTokens, 550, []float64{150, 400}},
		{metricToolUseTokens, 50, []float64{0, 50}},
		{metricTotalTokens, 254000, []float64{2430, 251570}},
		// flash: (600×0.30 + 400×0.03 + 200×2.50) + (200×0.30 + 1000×0.03 + 30×2.50) = 692 + 165 = 857 µ$;
		// pro above 200k: 250000×2.50 + 50×2.50 + 500×15 = 632625 µ$; pro: 1000×1.25 + 20×10 = 1450 µ$.
		{metricCostUSD, 0.000857 + 0.632625 + 0.00145, []float64{0.000857, 0.634075}},
		// calls 100 300 | 1000 20 600: mean 404; per invocation means 200, 540.
		{metricLatencyCallMS, 404, []float64{200, 540}},
		{metricLatencyInvocationMS, 1010, []float64{400, 1620}},
		{metricCacheHitRate, 1400.0 / 253200, []float64{1400.0 / 2200, 0}},
		{metricThinkingRatio, 550.0 / 750, []float64{150.0 / 230, 400.0 / 520}},
		{metricToolCalls, 3, []float64{1, 2}},
		{metricUniqueTools, 3, []float64{1, 2}},
		{metricToolErrorRate, 2.0 / 5, []float64{0, 2.0 / 4}},
		{metricAgentHandoffs, 1, []float64{0, 1}},
		{metricContextSaturation, 250000, []float64{1200, 250000}},
		// The 429 is not a successful call: (50+30+100+20)/4.
		{metricOutputDensity, 50, []float64{40, 60}},
	} {
		m := ms[tc.metric]
		engCheckScores(t, tc.metric, m, tc.overall, tc.per...)
		if m.Status != NotEvaluated || !m.Informational || m.Criterion != nil || m.Reason != "informational: reported without a threshold" {
			t.Errorf("%s: status %v informational %v reason %q", tc.metric, m.Status, m.Informational, m.Reason)
		}
		for _, p := range m.PerInvocation {
			if p.Status != NotEvaluated {
				t.Errorf("%s: invocation status %v", tc.metric, p.Status)
			}
		}
	}
	if cr.Status != NotEvaluated {
		t.Errorf("informational metrics alone decide nothing: %v", cr.Status)
	}
	lat := ms[metricLatencyCallMS].Details
	if lat["mean"] != 404.0 || lat["p50"] != 300.0 || lat["max"] != 1000.0 || lat["n"] != 5 {
		t.Errorf("latency details %v", lat)
	}
	if d := ms[metricLatencyInvocationMS].Details; d["p50"] != 1010.0 || d["max"] != 1620.0 || d["n"] != 2 {
		t.Errorf("invocation latency details %v", d)
	}
	if d := ms[metricToolErrorRate].Details; d["errors"] != 2 || d["results"] != 5 || !reflect.DeepEqual(d["failed_tools"], []string{"set_device_info", "check"}) {
		t.Errorf("tool errors %v", d)
	}
	if got := ms[metricToolErrorRate].PerInvocation[1].Reason; got != "invocation 2: failed tool results: set_device_info, check" {
		t.Errorf("tool error reason %q", got)
	}
	if d := ms[metricAgentHandoffs].Details; !reflect.DeepEqual(d["to"], []string{"kitchen_agent"}) {
		t.Errorf("handoffs %v", d)
	}
	if d := ms[metricToolCalls].Details; !reflect.DeepEqual(d["calls_per_tool"], map[string]int{"get_device_info": 1, "transfer_to_agent": 1, "set_device_info": 1}) {
		t.Errorf("tool calls %v", d)
	}
	if d := ms[metricCostUSD].Details; d["prices_as_of"] != pricesAsOf || len(d["per_model"].(map[string]float64)) != 4 {
		t.Errorf("cost details %v", d)
	}
}

func TestRunMetricThresholds(t *testing.T) {
	config := `{"adkproxy": {"criteria": {
	  "cost_usd": {"max": 0.5},
	  "total_tokens": {"max": 254000},
	  "latency_call_ms": {"max": 300, "stat": "p50"},
	  "latency_invocation_ms": {"max": 1000, "stat": "max"},
	  "cache_hit_rate": 0.5,
	  "tool_error_rate": {"max": 0.4},
	  "unique_tools": {"min": 4}}}}`
	cr, ms := engEval(t, config, engRunCase())
	for metric, want := range map[string]struct {
		status EvalStatus
		score  float64
	}{
		metricCostUSD:             {Failed, 0.634932},
		metricTotalTokens:         {Passed, 254000}, // ≤ max passes, equal included
		metricLatencyCallMS:       {Passed, 300},    // p50 of 20 100 300 600 1000
		metricLatencyInvocationMS: {Failed, 1620},
		metricCacheHitRate:        {Failed, 1400.0 / 253200},
		metricToolErrorRate:       {Passed, 0.4},
		metricUniqueTools:         {Failed, 3},
	} {
		m := ms[metric]
		if m.Status != want.status || m.Score == nil || !engClose(*m.Score, want.score) || m.Informational {
			t.Errorf("%s: %v %v, want %v %v (%s)", metric, m.Status, m.Score, want.status, want.score, m.Reason)
		}
	}
	if cr.Status != Failed {
		t.Errorf("case %v", cr.Status)
	}
	cost := ms[metricCostUSD]
	if !cost.Max || cost.Threshold != 0.5 || cost.Reason != "cost_usd 0.6349 is above the maximum 0.5: invocation 2: cost_usd 0.6341 is above the maximum 0.5" ||
		cost.PerInvocation[0].Status != Passed || cost.PerInvocation[1].Status != Failed {
		t.Errorf("cost %+v", cost)
	}
	lat := ms[metricLatencyInvocationMS]
	if lat.PerInvocation[0].Status != Passed || lat.PerInvocation[1].Status != Failed || lat.Details["stat"] != "max" {
		t.Errorf("latency %+v", lat)
	}
}

func TestCostNeedsAPriceForEveryModel(t *testing.T) {
	c := engRunCase()
	c.Actual[1].Steps[2].Model = "my-llm"
	c.Actual[1].Steps = append(c.Actual[1].Steps, Step{Usage: Usage{Prompt: 1}})
	_, ms := engEval(t, `{"adkproxy": {"criteria": {"cost_usd": {"max": 1}}}}`, c)
	m := ms[metricCostUSD]
	if m.Score != nil || m.Status != NotEvaluated || !strings.HasPrefix(m.Reason, `no price for (unknown model) (1 call), my-llm (1 call): add it under "adkproxy": {"prices"`) {
		t.Fatalf("%+v", m)
	}
	// A configured "*" prices everything else; configured prices replace defaults.
	_, ms = engEval(t, `{"adkproxy": {"criteria": {"cost_usd": {"max": 1}},
	  "prices": {"*": {"input": 1, "output": 1}, "gemini-2.5-flash": {"input": 0, "output": 0}}}}`, c)
	// flash free; pro long 632625 µ$; my-llm 1000+20; unknown 1.
	if m := ms[metricCostUSD]; m.Score == nil || !engClose(*m.Score, 0.632625+0.001020+0.000001) {
		t.Fatalf("%+v", m)
	}
}

func TestPriceLookupAndCost(t *testing.T) {
	prices := DefaultPrices()
	for model, want := range map[string]string{
		"gemini-2.5-flash":                    "gemini-2.5-flash",
		"models/gemini-2.0-flash":             "gemini-2.0-flash",
		"gemini-2.0-flash-001":                "gemini-2.0-flash",
		"gemini-2.5-flash-lite-preview-06-17": "gemini-2.5-flash-lite",
		"gemini-2.0-flash-lite-001":           "gemini-2.0-flash-lite",
		"gemini-3-flash-preview":              "gemini-3-flash-preview",
		"gemini-2.5-flashy":                   "",
		"gpt-4o":                              "",
	} {
		p, ok := priceFor(prices, model)
		if want == "" {
			if ok {
				t.Errorf("%s: priced %+v", model, p)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(p, prices[want]) {
			t.Errorf("%s: %+v, want %s", model, p, want)
		}
	}
	pro := prices["gemini-2.5-pro"]
	// 200,000 prompt tokens is still the short-context price: 100k fresh
	// × 1.25 + 100k cached × 0.125 + 1000 × 10 = 147500 µ$.
	if got := pro.Cost(Usage{Prompt: 200000, Cached: 100000, Candidates: 600, Thoughts: 400}); math.Abs(got-0.1475) > 1e-15 {
		t.Errorf("pro short %v", got)
	}
	// One token more: 100001 × 2.50 + 100000 × 0.25 + 1000 × 15 = 290002.5 µ$.
	if got := pro.Cost(Usage{Prompt: 200001, Cached: 100000, Candidates: 600, Thoughts: 400}); math.Abs(got-0.2900025) > 1e-15 {
		t.Errorf("pro long %v", got)
	}
}

func TestRunMetricsNeedRecordedSteps(t *testing.T) {
	c := Case{Actual: []Invocation{{UserText: "hi", FinalResponse: "hello"}}}
	_, ms := engEval(t, `{"adkproxy": {"criteria": {"total_tokens": {"max": 10}, "cache_hit_rate": 0.1}}}`, c)
	for _, name := range []string{metricTotalTokens, metricCacheHitRate} {
		if m := ms[name]; m.Status != NotEvaluated || m.Reason != "no recorded model calls: run metrics need a recording, not eval set invocations" {
			t.Errorf("%s: %+v", name, m)
		}
	}
	c = Case{Actual: []Invocation{{Steps: []Step{{Model: "gemini-2.5-flash", Latency: time.Millisecond}}}}}
	_, ms = engEval(t, `{"adkproxy": {"criteria": {"cache_hit_rate": 0.1, "thinking_ratio": {}, "tool_error_rate": {"max": 0}}}}`, c)
	for name, reason := range map[string]string{
		metricCacheHitRate:  "no prompt tokens recorded",
		metricThinkingRatio: "no output tokens recorded",
		metricToolErrorRate: "no tool results recorded",
	} {
		if m := ms[name]; m.Score != nil || m.Status != NotEvaluated || m.Reason != reason {
			t.Errorf("%s: %+v", name, m)
		}
	}
}

// runOf is the run metrics of one session as a row: the same numbers as
// the metrics of those names, the duration from the invocations' own wall
// time when they have one, else from their model calls.
func TestRunOfIsTheRunMetricsAsARow(t *testing.T) {
	c := engRunCase()
	got := runOf(nil, &c)
	// 1200+1230+250550+1020 tokens; cached 1400 of 253200 prompt tokens;
	// 3 tool calls (transfer included), 3 distinct, 2 failed results, of
	// which one answers a call (set_device_info): 2 of 3 calls succeeded;
	// 550 thoughts of 750 output tokens; one transfer.
	want := SessionRun{Duration: 2020 * time.Millisecond, TotalTokens: 254000, TurnCount: 2, ToolCalls: 3, ToolErrors: 2,
		UniqueTools: []string{"get_device_info", "set_device_info", "transfer_to_agent"}, ToolSuccessRate: Float(2.0 / 3),
		ReasoningRatio: Float(550.0 / 750), AgentHandoffs: 1}
	rate := got.CacheHitRate
	got.CacheHitRate = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runOf = %+v, want %+v", got, want)
	}
	if rate == nil || math.Abs(*rate-1400.0/253200) > 1e-12 {
		t.Errorf("cache hit rate %v, want %v", rate, 1400.0/253200)
	}
	c.Actual[0].Elapsed = 5 * time.Second
	c.Actual[1].Elapsed = 7 * time.Second
	if d := runOf(nil, &c).Duration; d != 12*time.Second {
		t.Errorf("with measured wall times the duration is %v, want 12s", d)
	}
}
