package scoring

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// engCall builds a call with args from key, value pairs; engCall("f") has
// empty args ({}), engNullCall("f") null ones (Python None).
func engCall(name string, kv ...any) cassettes.ToolCall {
	args := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i].(string)] = kv[i+1]
	}
	return cassettes.ToolCall{Name: name, Args: args}
}

func engNullCall(name string) cassettes.ToolCall { return cassettes.ToolCall{Name: name} }

func engCalls(calls ...cassettes.ToolCall) Invocation { return Invocation{ToolCalls: calls} }

// engEval evaluates one case with a config given as JSON and returns the
// metric results by name.
func engEval(t *testing.T, config string, c Case) (CaseResult, map[string]MetricResult) {
	t.Helper()
	cfg, err := ParseConfig("testdata/engine.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	res := Evaluate(context.Background(), cfg, []Case{c})
	byName := map[string]MetricResult{}
	for _, m := range res.Cases[0].Metrics {
		byName[m.Metric] = m
	}
	return res.Cases[0], byName
}

func engScores(m MetricResult) []float64 {
	var out []float64
	for _, p := range m.PerInvocation {
		if p.Score == nil {
			out = append(out, math.NaN())
		} else {
			out = append(out, *p.Score)
		}
	}
	return out
}

func engClose(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func engCheckScores(t *testing.T, what string, m MetricResult, overall float64, per ...float64) {
	t.Helper()
	if m.Score == nil || !engClose(*m.Score, overall) {
		t.Errorf("%s: score %v, want %v (%s)", what, m.Score, overall, m.Reason)
		return
	}
	got := engScores(m)
	if len(got) != len(per) {
		t.Errorf("%s: per invocation %v, want %v", what, got, per)
		return
	}
	for i := range per {
		if !engClose(got[i], per[i]) {
			t.Errorf("%s: per invocation %v, want %v", what, got, per)
			return
		}
	}
}

func TestPyEqualIsPythonEquality(t *testing.T) {
	big := json.Number("9007199254740993") // 2**53 + 1
	for _, tc := range []struct {
		a, b any
		want bool
	}{
		{json.Number("1"), 1.0, true},
		{json.Number("1.0"), json.Number("1"), true},
		{true, json.Number("1"), true},
		{true, 1.0, true},
		{false, json.Number("0"), true},
		{false, nil, false},
		{true, json.Number("2"), false},
		{"1", json.Number("1"), false},
		{nil, nil, true},
		{nil, map[string]any{}, false},
		{nil, "", false},
		{[]any{json.Number("1"), "a"}, []any{1.0, "a"}, true},
		{[]any{"a", json.Number("1")}, []any{1.0, "a"}, false},
		{map[string]any{"a": json.Number("1"), "b": []any{true}}, map[string]any{"b": []any{1}, "a": 1.0}, true},
		{map[string]any{"a": nil}, map[string]any{}, false},
		{map[string]any{"a": nil}, map[string]any{"a": nil}, true},
		{big, 9007199254740992.0, false},
		{big, json.Number("9007199254740993"), true},
		{json.Number("9007199254740992"), 9007199254740992.0, true},
		{json.Number("1e2"), json.Number("100"), true},
		{json.Number("0.1"), 0.1, true},
		{[]string{"x"}, []any{"x"}, true},
		{map[string]int{"n": 1}, map[string]any{"n": 1.0}, true},
	} {
		if got := pyEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("PyEqual(%#v, %#v) = %v", tc.a, tc.b, got)
		}
		if got := pyEqual(tc.b, tc.a); got != tc.want {
			t.Errorf("PyEqual(%#v, %#v) = %v (swapped)", tc.b, tc.a, got)
		}
	}
	if argsEqual(nil, map[string]any{}) || !argsEqual(nil, nil) || !argsEqual(map[string]any{}, map[string]any{}) {
		t.Error("ArgsEqual: null args must differ from {} only")
	}
}

func TestToolTrajectoryExactWithReasons(t *testing.T) {
	c := Case{ID: "c",
		Actual: []Invocation{
			engCalls(engCall("get_weather", "city", "Paris")),
			engCalls(engCall("get_weather", "city", "Paris")),
			engCalls(),
			engCalls(),
			engCalls(engCall("a"), engCall("b")),
		},
		Expected: []Invocation{
			engCalls(engCall("get_weather", "city", "Paris")),
			engCalls(engCall("get_weather", "city", "London")),
			engCalls(),
			engCalls(engCall("a")),
			engCalls(engCall("b"), engCall("a")),
		},
	}
	cr, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": 1.0}}`, c)
	m := ms[ToolTrajectoryAvgScore]
	engCheckScores(t, "exact", m, 2.0/5, 1, 0, 1, 0, 0)
	want := []string{"",
		`invocation 2: expected get_weather(city="London"), got get_weather(city="Paris"); args differ: city`,
		"",
		`invocation 4: expected 1 tool call [a()], got no tool calls`,
		`invocation 5: call 1: expected b(), got a()`,
	}
	for i, p := range m.PerInvocation {
		if p.Reason != want[i] {
			t.Errorf("reason %d: %q, want %q", i, p.Reason, want[i])
		}
		if wantStatus := map[bool]EvalStatus{true: Passed, false: Failed}[want[i] == ""]; p.Status != wantStatus {
			t.Errorf("status %d: %v", i, p.Status)
		}
	}
	if m.Status != Failed || cr.Status != Failed || m.Threshold != 1 ||
		!strings.HasPrefix(m.Reason, `tool_trajectory_avg_score 0.4 is below the threshold 1: invocation 2: expected get_weather(city="London")`) {
		t.Fatalf("verdict %v %v %q", m.Status, cr.Status, m.Reason)
	}
	if m.Details["match_type"] != "EXACT" || len(m.Criterion) != 1 || m.Criterion["threshold"] != 1.0 {
		t.Errorf("details %v criterion %v", m.Details, m.Criterion)
	}
}

func TestToolTrajectoryMatchTypesAndEmptyLists(t *testing.T) {
	a, b, c := engCall("a"), engCall("b"), engCall("c")
	a1, a2 := engCall("a", "x", 1), engCall("a", "x", 2)
	for _, tc := range []struct {
		match            string
		actual, expected []cassettes.ToolCall
		want             float64
		reason           string
	}{
		// ADK's empty-list rules.
		{"EXACT", nil, nil, 1, ""},
		{"EXACT", []cassettes.ToolCall{a}, nil, 0, "invocation 1: expected no tool calls, got 1 tool call [a()]"},
		{"IN_ORDER", nil, nil, 1, ""},
		{"IN_ORDER", []cassettes.ToolCall{a}, nil, 1, ""},
		{"IN_ORDER", nil, []cassettes.ToolCall{a}, 0, "invocation 1: expected [a()] in order, got no tool calls"},
		{"ANY_ORDER", nil, nil, 1, ""},
		{"ANY_ORDER", []cassettes.ToolCall{a}, nil, 1, ""},
		{"ANY_ORDER", nil, []cassettes.ToolCall{a}, 0, "invocation 1: expected [a()] in any order, got no tool calls"},
		// IN_ORDER: a greedy subsequence, others allowed between.
		{"IN_ORDER", []cassettes.ToolCall{a, b, c}, []cassettes.ToolCall{a, c}, 1, ""},
		{"IN_ORDER", []cassettes.ToolCall{c, a}, []cassettes.ToolCall{a, c}, 0,
			"invocation 1: expected [a(), c()] in order, got [c(), a()]: c() (expected call 2 of 2) not found after a()"},
		{"IN_ORDER", []cassettes.ToolCall{a1, a1, a2}, []cassettes.ToolCall{a1, a2}, 1, ""},
		{"IN_ORDER", []cassettes.ToolCall{a2, a1}, []cassettes.ToolCall{a1, a2}, 0,
			"invocation 1: expected [a(x=1), a(x=2)] in order, got [a(x=2), a(x=1)]: a(x=2) (expected call 2 of 2) not found after a(x=1)"},
		// ANY_ORDER: each expected call consumes one actual call.
		{"ANY_ORDER", []cassettes.ToolCall{b, a}, []cassettes.ToolCall{a, b}, 1, ""},
		{"ANY_ORDER", []cassettes.ToolCall{a, b, a}, []cassettes.ToolCall{a, a}, 1, ""},
		{"ANY_ORDER", []cassettes.ToolCall{a}, []cassettes.ToolCall{a, a}, 0,
			"invocation 1: expected [a(), a()] in any order, got [a()]: a() not found"},
		{"ANY_ORDER", []cassettes.ToolCall{a1}, []cassettes.ToolCall{a2}, 0,
			"invocation 1: expected [a(x=2)] in any order, got [a(x=1)]: a(x=2) not found (closest: a(x=1); args differ: x)"},
		{"EXACT", []cassettes.ToolCall{a, b}, []cassettes.ToolCall{a, b}, 1, ""},
	} {
		c := Case{Actual: []Invocation{engCalls(tc.actual...)}, Expected: []Invocation{engCalls(tc.expected...)}}
		_, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "`+tc.match+`"}}}`, c)
		m := ms[ToolTrajectoryAvgScore]
		if m.Score == nil || *m.Score != tc.want || m.PerInvocation[0].Reason != tc.reason {
			t.Errorf("%s %v vs %v: score %v reason %q, want %v %q", tc.match, tc.actual, tc.expected, m.Score, m.PerInvocation[0].Reason, tc.want, tc.reason)
		}
	}
}

func TestToolTrajectoryPythonArgEquality(t *testing.T) {
	for _, tc := range []struct {
		actual, expected cassettes.ToolCall
		want             float64
		reason           string
	}{
		{engCall("f", "n", 1.0), engCall("f", "n", json.Number("1")), 1, ""},
		{engCall("f", "flag", 1.0), engCall("f", "flag", true), 1, ""},
		{engCall("f", "flag", 0.0), engCall("f", "flag", false), 1, ""},
		{engCall("f", "n", 1.5), engCall("f", "n", json.Number("1")), 0, `invocation 1: expected f(n=1), got f(n=1.5); args differ: n`},
		{engCall("f", "s", "1"), engCall("f", "s", json.Number("1")), 0, `invocation 1: expected f(s=1), got f(s="1"); args differ: s`},
		{engNullCall("f"), engCall("f"), 0, `invocation 1: expected f(), got f(null); args null vs an object (Python None ≠ {})`},
		{engCall("f"), engCall("f", "a", nil), 0, `invocation 1: expected f(a=null), got f(); args differ: a`},
		{engCall("f", "a", nil), engCall("f", "a", nil), 1, ""},
		{engCall("f", "l", []any{1.0, 2.0}), engCall("f", "l", []any{json.Number("2"), json.Number("1")}), 0, `invocation 1: expected f(l=[2,1]), got f(l=[1,2]); args differ: l`},
		{engCall("f", "d", map[string]any{"b": 2.0, "a": 1.0}), engCall("f", "d", map[string]any{"a": json.Number("1"), "b": json.Number("2")}), 1, ""},
		{cassettes.ToolCall{ID: "adk-123", Name: "f", Args: map[string]any{}}, engCall("f"), 1, ""},
	} {
		c := Case{Actual: []Invocation{engCalls(tc.actual)}, Expected: []Invocation{engCalls(tc.expected)}}
		_, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": 1.0}}`, c)
		m := ms[ToolTrajectoryAvgScore]
		if *m.Score != tc.want || m.PerInvocation[0].Reason != tc.reason {
			t.Errorf("%v vs %v: %v %q, want %v %q", tc.actual, tc.expected, *m.Score, m.PerInvocation[0].Reason, tc.want, tc.reason)
		}
	}
}

func TestToolTrajectoryIgnoreArgs(t *testing.T) {
	c := Case{
		Actual:   []Invocation{engCalls(engCall("f", "x", 1.0)), engCalls(engCall("g"))},
		Expected: []Invocation{engCalls(engCall("f", "x", 2.0)), engCalls(engNullCall("h"))},
	}
	_, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "ignore_args": true}}}`, c)
	m := ms[ToolTrajectoryAvgScore]
	engCheckScores(t, "ignore_args", m, 0.5, 1, 0)
	if m.Status != Passed || m.PerInvocation[1].Status != Failed || m.Details["ignore_args"] != true {
		t.Fatalf("%+v", m)
	}
}

func TestToolTrajectoryNotEvaluated(t *testing.T) {
	// No invocations: ADK returns no score.
	cr, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": 1.0}}`, Case{Expected: []Invocation{}})
	if m := ms[ToolTrajectoryAvgScore]; m.Score != nil || m.Status != NotEvaluated || m.Reason != "no invocations to compare" || cr.Status != NotEvaluated {
		t.Fatalf("%+v %v", m, cr.Status)
	}
	// No expectations at all.
	_, ms = engEval(t, `{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}`, Case{Actual: []Invocation{engCalls()}})
	for _, name := range []string{ToolTrajectoryAvgScore, ResponseMatchScore} {
		if m := ms[name]; m.Status != NotEvaluated || m.Reason != "no expected invocations: the session was not paired with an eval case or a golden run" {
			t.Errorf("%s: %+v", name, m)
		}
	}
	// Unequal counts: the case fails, the comparison is not made.
	cr, ms = engEval(t, `{"criteria": {"tool_trajectory_avg_score": 1.0}}`,
		Case{Actual: []Invocation{engCalls()}, Expected: []Invocation{engCalls(), engCalls()}, Failure: "counts differ"})
	if m := ms[ToolTrajectoryAvgScore]; m.Status != NotEvaluated || m.Reason != "not compared: counts differ" || cr.Status != Failed {
		t.Fatalf("%+v %v", m, cr.Status)
	}
}

func TestTrajectoryPartialCredit(t *testing.T) {
	a1, b, c, d := engCall("a", "x", 1.0), engCall("b"), engCall("c"), engCall("d")
	cs := Case{
		Actual: []Invocation{
			engCalls(a1, b, c),
			engCalls(engCall("a"), engCall("a")),
			engCalls(),
			engCalls(),
			engCalls(a1),
		},
		Expected: []Invocation{
			engCalls(engCall("a", "x", json.Number("1")), b, d),
			engCalls(engCall("a")),
			engCalls(),
			engCalls(b),
			engCalls(),
		},
	}
	_, ms := engEval(t, `{"adkproxy": {"criteria": {"trajectory_precision": 0.4, "trajectory_recall": 0.5, "trajectory_f1": {"min": 0.4}}}}`, cs)
	// Hand-computed: 2 of 3 matched; 1 of 2 actual, 1 of 1 expected;
	// both empty; actual empty; expected empty.
	engCheckScores(t, "precision", ms[metricTrajectoryPrecision], (2.0/3+0.5+1+0+0)/5, 2.0/3, 0.5, 1, 0, 0)
	engCheckScores(t, "recall", ms[metricTrajectoryRecall], (2.0/3+1+1+0+0)/5, 2.0/3, 1, 1, 0, 0)
	engCheckScores(t, "f1", ms[metricTrajectoryF1], (2.0/3+2.0/3+1+0+0)/5, 2.0/3, 2.0/3, 1, 0, 0)
	if got := ms[metricTrajectoryF1].PerInvocation[0].Reason; got != `invocation 1: 2 of 3 actual and 2 of 3 expected calls matched; missing [d()]; unexpected [c()]` {
		t.Errorf("reason %q", got)
	}
	if got := ms[metricTrajectoryRecall].PerInvocation[3].Reason; got != `invocation 4: 0 of 0 actual and 0 of 1 expected calls matched; missing [b()]` {
		t.Errorf("reason %q", got)
	}
	if ms[metricTrajectoryF1].Status != Passed || ms[metricTrajectoryPrecision].Status != Passed || ms[metricTrajectoryRecall].Status != Passed {
		t.Errorf("statuses %v %v %v", ms[metricTrajectoryPrecision].Status, ms[metricTrajectoryRecall].Status, ms[metricTrajectoryF1].Status)
	}
}

func TestTrajectoryPartialCreditWithArgMatchers(t *testing.T) {
	config := `{
	  "criteria": {"tool_trajectory_avg_score": {"threshold": 0, "match_type": "ANY_ORDER"}},
	  "adkproxy": {"criteria": {"trajectory_recall": 1},
	    "arg_matchers": {
	      "get_weather": {"city": "exact", "date": "ignore", "query": {"regex": "^par"}, "temp": {"tolerance": 0.5}, "filters": "subset"},
	      "search": {"*": "superset"},
	      "lookup": "ignore",
	      "*": {"request_id": "ignore"}}}}`
	gw := func(kv ...any) cassettes.ToolCall { return engCall("get_weather", kv...) }
	for _, tc := range []struct {
		name             string
		actual, expected cassettes.ToolCall
		want             float64
	}{
		{"all kinds match", gw("city", "Paris", "date", "2025-01-01", "query", "paris weather", "temp", 20.4, "filters", map[string]any{"unit": "C"}),
			gw("city", "Paris", "date", "tomorrow", "query", "anything", "temp", json.Number("20"), "filters", map[string]any{"unit": "C", "lang": "fr"}), 1},
		{"exact city differs", gw("city", "Lyon"), gw("city", "Paris"), 0},
		{"ignored date may be absent", gw("city", "Paris"), gw("city", "Paris", "date", "today"), 1},
		{"regex fails", gw("query", "london"), gw("query", "x"), 0},
		{"regex on a non-string", gw("query", 3.0), gw("query", "x"), 0},
		{"regex needs the argument", gw(), gw("query", "par"), 0},
		{"tolerance exceeded", gw("temp", 21.0), gw("temp", 20.4), 0},
		{"tolerance is not for booleans", gw("temp", true), gw("temp", 1.0), 0},
		{"subset: actual has more", gw("filters", map[string]any{"unit": "C", "x": 1.0}), gw("filters", map[string]any{"unit": "C"}), 0},
		{"subset: absent actual", gw(), gw("filters", map[string]any{"unit": "C"}), 1},
		{"subset: list", gw("filters", []any{"a"}), gw("filters", []any{"b", "a"}), 1},
		{"superset: actual has more", engCall("search", "q", "x", "extra", 1.0), engCall("search", "q", "x"), 1},
		{"superset: actual lacks", engCall("search"), engCall("search", "q", "x"), 0},
		{"superset nested", engCall("search", "opts", map[string]any{"a": 1.0, "b": 2.0}), engCall("search", "opts", map[string]any{"a": true}), 1},
		{"tool ignored, null args too", engNullCall("lookup"), engCall("lookup", "id", 7.0), 1},
		{"every tool ignores request_id", engCall("other", "request_id", "r1", "v", 1.0), engCall("other", "request_id", "r2", "v", 1.0), 1},
		{"other args exact", engCall("other", "v", 2.0), engCall("other", "v", 1.0), 0},
		{"null args differ from {}", engNullCall("other"), engCall("other"), 0},
		{"names must match", engCall("search2"), engCall("search"), 0},
	} {
		c := Case{Actual: []Invocation{engCalls(tc.actual)}, Expected: []Invocation{engCalls(tc.expected)}}
		_, ms := engEval(t, config, c)
		if m := ms[metricTrajectoryRecall]; *m.Score != tc.want {
			t.Errorf("%s: recall %v, want %v (%s)", tc.name, *m.Score, tc.want, m.Reason)
		}
	}

	// The matchers never apply to ADK's metric.
	c := Case{Actual: []Invocation{engCalls(gw("city", "Paris", "date", "a"))}, Expected: []Invocation{engCalls(gw("city", "Paris", "date", "b"))}}
	_, ms := engEval(t, config, c)
	if *ms[metricTrajectoryRecall].Score != 1 || *ms[ToolTrajectoryAvgScore].Score != 0 {
		t.Fatalf("recall %v, ADK %v", *ms[metricTrajectoryRecall].Score, *ms[ToolTrajectoryAvgScore].Score)
	}
}

func TestTrajectoryMatchingIsMaximum(t *testing.T) {
	// A greedy pairing would give actual v=1 to expected v=2 and leave
	// actual v=3 alone; the maximum matching pairs both.
	config := `{"adkproxy": {"criteria": {"trajectory_f1": 1}, "arg_matchers": {"x": {"v": {"tolerance": 1}}}}}`
	c := Case{
		Actual:   []Invocation{engCalls(engCall("x", "v", 1.0), engCall("x", "v", 3.0))},
		Expected: []Invocation{engCalls(engCall("x", "v", 2.0), engCall("x", "v", 0.0))},
	}
	_, ms := engEval(t, config, c)
	engCheckScores(t, "f1", ms[metricTrajectoryF1], 1, 1)
}

// TestSingleToolUse: per invocation, as Vertex AI's
// trajectory_single_tool_use; a tool called in one of two invocations
// scores 0.5, and the verdict says so in those words.
func TestSingleToolUse(t *testing.T) {
	c := Case{Actual: []Invocation{
		engCalls(engCall("transfer_to_agent", "agent_name", "weather"), engCall("get_weather", "city", "Paris")),
		engCalls(engCall("get_time")),
	}}
	cr, ms := engEval(t, `{"adkproxy": {"criteria": {"single_tool_use": {"tool": "get_weather", "threshold": 1}}}}`, c)
	m := ms[metricSingleToolUse]
	engCheckScores(t, "single tool", m, 0.5, 1, 0)
	if m.Status != Failed || cr.Status != Failed || m.PerInvocation[1].Reason != "invocation 2: get_weather was not called; got [get_time()]" ||
		m.Reason != "single_tool_use 0.5 is below the threshold 1: get_weather was called in 1 of 2 invocations (the score is the share of invocations that call it); invocation 2: get_weather was not called; got [get_time()]" {
		t.Fatalf("%+v", m)
	}
}
