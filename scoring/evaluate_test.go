package scoring

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// The shipped weather recording against testdata/weather.evalset.json,
// scored with testdata/eval_config.json: every kind of metric at once.
func TestEvaluateWeatherRecordingEndToEnd(t *testing.T) {
	cs, err := cassettes.LoadDir(filepath.Join(testutil.RepoRoot(), "examples", "weather", "cassettes"))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := LoadExpected(filepath.Join("testdata", "weather.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(filepath.Join("testdata", "eval_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases, unpaired := Pair(SessionsOf(cs), exp)
	if len(cases) != 1 || len(unpaired) != 0 || cases[0].ID != "default" || cases[0].Failure != "" {
		t.Fatalf("cases %+v unpaired %v", cases, unpaired)
	}
	res := Evaluate(context.Background(), cfg, cases)
	if res.EvalSetID != "weather" || len(res.Cases) != 1 {
		t.Fatalf("result %+v", res)
	}
	cr := res.Cases[0]
	ms := map[string]MetricResult{}
	var order []string
	for _, m := range cr.Metrics {
		ms[m.Metric] = m
		order = append(order, m.Metric)
	}
	if strings.Join(order, " ") != strings.Join(cfg.Metrics(), " ") {
		t.Fatalf("order %v", order)
	}

	// ADK's trajectory (IN_ORDER, exact args): Paris = Paris, Tokyo ≠ London.
	tt := ms[ToolTrajectoryAvgScore]
	engCheckScores(t, "trajectory", tt, 0.5, 1, 0)
	if tt.Status != Passed || tt.PerInvocation[1].Reason !=
		`invocation 2: expected [get_weather(city="London")] in order, got [get_weather(city="Tokyo")]: get_weather(city="London") (expected call 1 of 1) not found` {
		t.Errorf("trajectory %+v", tt)
	}
	// ROUGE-1: identical; then "it is sunni in tokyo" vs "it is 24 c in
	// tokyo clear": 4 shared, P = 4/7, R = 4/5, F = 2/3.
	engCheckScores(t, "response", ms[ResponseMatchScore], (1+2.0/3)/2, 1, 2.0/3)
	if ms[ResponseMatchScore].Status != Passed {
		t.Errorf("response %+v", ms[ResponseMatchScore])
	}
	if m := ms["final_response_match_v2"]; m.Status != NotEvaluated || m.Reason != "final_response_match_v2 is not computed by adkproxy: "+judgeMissing {
		t.Errorf("judge %+v", m)
	}
	if m := ms["mentions_city"]; m.Status != Passed || *m.Score != 1 || m.Details["description"] != "the final response names a city" {
		t.Errorf("custom %+v", m)
	}
	// The regex matcher accepts Tokyo for London, in adkproxy's metric only.
	engCheckScores(t, "f1", ms[metricTrajectoryF1], 1, 1, 1)
	engCheckScores(t, "single tool", ms[metricSingleToolUse], 1, 1, 1)
	// usage {6,1} {6,7} {16,1} {16,7} on gemini-2.5-flash (from the
	// responses' modelVersion): 44 × 0.30 + 16 × 2.50 = 53.2 µ$.
	cost := ms[metricCostUSD]
	engCheckScores(t, "cost", cost, 53.2e-6, 23.6e-6, 29.6e-6)
	if cost.Status != Passed || cost.Details["per_model"].(map[string]float64)["gemini-2.5-flash"] == 0 {
		t.Errorf("cost %+v", cost)
	}
	// The shipped cassette's latency_ms: 9.31 + 3.039 and 0.776 + 0.671 ms
	// (scripts/record-demo.sh records them anew); p50 of two = their mean.
	engCheckScores(t, "latency", ms[metricLatencyInvocationMS], (12.349+1.447)/2, 12.349, 1.447)
	if m := ms[metricTotalTokens]; !m.Informational || m.Status != NotEvaluated || *m.Score != 60 {
		t.Errorf("tokens %+v", m)
	}
	if cr.Status != Passed {
		t.Errorf("case %v", cr.Status)
	}
	// Everything is JSON-encodable (no NaN, no odd types in details).
	if _, err := json.Marshal(res.Cases[0].Metrics); err != nil {
		t.Fatal(err)
	}
}

// ADK's documentation examples: the dice roller (hello_world: roll_die,
// check_prime), in camelCase with invocation_events, scored by every match
// type; roll order matters only to EXACT and IN_ORDER.
func TestEvaluateDiceRollerFromADKDocs(t *testing.T) {
	exp, err := LoadExpected(filepath.Join("testdata", "evalsets", "dice_roller.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	sessions := []Session{{Cassette: "roll_and_check", ID: 1, Invocations: []Invocation{
		{UserText: "What can you do?", FinalResponse: "I can roll dice of different sizes and check if numbers are prime."},
		{UserText: "Roll a 10 sided dice twice and then check if 9 is a prime or not",
			ToolCalls: []cassettes.ToolCall{
				{ID: "adk-x", Name: "check_prime", Args: map[string]any{"nums": []any{9.0}}},
				{ID: "adk-y", Name: "roll_die", Args: map[string]any{"sides": 10.0}},
				{ID: "adk-z", Name: "roll_die", Args: map[string]any{"sides": 10.0}},
			},
			FinalResponse: "I rolled a 10 sided die twice: 6 and 5. 9 is not a prime number."},
	}}, {Cassette: "scenario", ID: 1, Invocations: []Invocation{{UserText: "Roll a 6 sided die."}}}}
	cases, unpaired := Pair(sessions, exp)
	if len(cases) != 2 || len(unpaired) != 0 {
		t.Fatalf("cases %d unpaired %v", len(cases), unpaired)
	}
	for match, want := range map[string]float64{"EXACT": 0.5, "IN_ORDER": 0.5, "ANY_ORDER": 1} {
		cfg, err := ParseConfig("c.json", []byte(`{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "`+match+`"}, "response_match_score": 0.5}}`))
		if err != nil {
			t.Fatal(err)
		}
		res := Evaluate(context.Background(), cfg, cases)
		tt := res.Cases[0].Metrics[0]
		if *tt.Score != want {
			t.Errorf("%s: %v (%s)", match, *tt.Score, tt.Reason)
		}
		// The scenario case has no conversation to compare with.
		sc := res.Cases[1]
		if sc.Status != NotEvaluated || sc.Metrics[0].Reason != "the eval case has a conversation_scenario, no expected conversation to compare with" {
			t.Errorf("scenario %+v", sc)
		}
	}
	cfg, _ := ParseConfig("c.json", []byte(`{"criteria": {"response_match_score": 0.5}}`))
	res := Evaluate(context.Background(), cfg, cases[:1])
	// Invocation 2, stemmed (words of 3 letters or fewer are not): expected
	// "i roll a 10 side die twice the first roll was 6 and the second roll
	// was 5 9 is not a prime number" (24 tokens; the two text parts joined
	// by "\n"); actual "i roll a 10 side die twice 6 and 5 9 is not a prime
	// number" (16), all 16 shared: P = 1, R = 2/3, F = 4/5.
	engCheckScores(t, "dice response", res.Cases[0].Metrics[0], 0.9, 1, 0.8)
}

func TestCaseStatusFollowsADK(t *testing.T) {
	mr := func(statuses ...EvalStatus) []MetricResult {
		var out []MetricResult
		for _, s := range statuses {
			out = append(out, MetricResult{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		failure string
		metrics []MetricResult
		want    EvalStatus
	}{
		{"", nil, NotEvaluated},
		{"", mr(NotEvaluated, NotEvaluated), NotEvaluated},
		{"", mr(NotEvaluated, Passed), Passed},
		{"", mr(Passed, Failed, NotEvaluated), Failed},
		{"counts differ", mr(Passed), Failed},
		{"counts differ", nil, Failed},
	} {
		if got := caseStatus(&Case{Failure: tc.failure}, tc.metrics); got != tc.want {
			t.Errorf("%q %v: %v, want %v", tc.failure, tc.metrics, got, tc.want)
		}
	}
}

func TestEvaluateUnequalInvocationCountsFailTheCase(t *testing.T) {
	sessions := []Session{engSession("s", 1, "a")}
	sessions[0].Invocations[0].Steps = []Step{{Model: "gemini-2.5-flash", Usage: Usage{Prompt: 10, Total: 10}}}
	exp := &Expected{Cases: []ExpectedCase{engExpected("s", "a", "b")}}
	cases, _ := Pair(sessions, exp)
	cfg, _ := ParseConfig("c.json", []byte(`{"criteria": {"tool_trajectory_avg_score": 1}, "adkproxy": {"criteria": {"total_tokens": {"max": 100}}}}`))
	res := Evaluate(context.Background(), cfg, cases)
	cr := res.Cases[0]
	if cr.Status != Failed || cr.Metrics[0].Status != NotEvaluated || !strings.HasPrefix(cr.Metrics[0].Reason, "not compared: the eval case has 2 invocations") ||
		cr.Metrics[1].Status != Passed {
		t.Fatalf("%+v", cr)
	}
}

func TestEvaluateDefaultsAndOrder(t *testing.T) {
	var cases []Case
	for i := range 50 {
		cases = append(cases, Case{ID: string(rune('A' + i%26)), Actual: []Invocation{{FinalResponse: "x"}}, Expected: []Invocation{{FinalResponse: "x"}}})
	}
	res := Evaluate(context.Background(), nil, cases)
	for i, c := range res.Cases {
		if c.Case != &cases[i] || len(c.Metrics) != 2 || c.Status != Passed {
			t.Fatalf("case %d: %+v", i, c)
		}
	}
	if res := Evaluate(context.Background(), nil, nil); len(res.Cases) != 0 {
		t.Fatal(res)
	}
}
