package scoring

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// engSelfCommand is the argv that runs this test binary as a custom metric.
func engSelfCommand(t *testing.T, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal([]string{exe, engHelperArg, mode})
	return string(b)
}

func engCustomCase() Case {
	return Case{
		ID: "weather/1",
		Actual: []Invocation{
			{ID: "a1", UserText: "Weather in Paris?", FinalResponse: "Sunny in Paris.",
				ToolCalls:             []cassettes.ToolCall{{ID: "adk-1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}},
				ToolResults:           []cassettes.ToolResult{{ID: "adk-1", Name: "get_weather", Response: map[string]any{"sky": "clear"}}},
				IntermediateResponses: []AuthoredText{{Author: "root", Text: "Checking."}}},
			{ID: "a2", UserText: "And Rome?", ToolCalls: []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Milan"}}}},
		},
		Expected: []Invocation{
			{ID: "e1", UserText: "Weather in Paris?", FinalResponse: "It is sunny in Paris.", ToolCalls: []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}},
			{ID: "e2", UserText: "And Rome?", ToolCalls: []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Rome"}}}},
		},
	}
}

func TestCustomMetricInAnotherProcess(t *testing.T) {
	config := `{"criteria": {"same_tools": {"threshold": 0.75, "note": "passed through"}},
	  "custom_metrics": {"same_tools": {"command": ` + engSelfCommand(t, "tools") + `, "description": "tool_uses equal"}}}`
	cr, ms := engEval(t, config, engCustomCase())
	m := ms["same_tools"]
	engCheckScores(t, "custom", m, 0.5, 1, 0)
	if m.Status != Failed || cr.Status != Failed || m.PerInvocation[0].Status != Passed || m.PerInvocation[1].Status != Failed {
		t.Fatalf("statuses %+v", m)
	}
	if r := m.PerInvocation[1].Reason; r != `got [{"args":{"city":"Milan"},"name":"get_weather"}], want [{"args":{"city":"Rome"},"name":"get_weather"}]` {
		t.Errorf("reason %q", r)
	}
	if !reflect.DeepEqual(m.Details, map[string]any{"metric": "same_tools", "threshold": json.Number("0.75"), "description": "tool_uses equal"}) {
		t.Errorf("details %v", m.Details)
	}
	if !strings.HasPrefix(m.Reason, "same_tools 0.5 is below the threshold 0.75: got [") {
		t.Errorf("reason %q", m.Reason)
	}
}

func TestCustomMetricReceivesADKShapes(t *testing.T) {
	c := engCustomCase()
	c.Scenario = json.RawMessage(`{"starting_prompt":"Weather in Paris?"}`)
	config := `{"criteria": {"inspect": 0.5}, "custom_metrics": {"inspect": {"command": ` + engSelfCommand(t, "inspect") +
		`, "code_config": {"name": "my.metrics.inspect"}}}}`
	_, ms := engEval(t, config, c)
	m := ms["inspect"]
	if m.Status != Passed {
		t.Fatalf("%+v", m)
	}
	got, _ := json.Marshal(m.Details["input"])
	want := `{"actual_invocations":[` +
		`{"creation_timestamp":0,"final_response":{"parts":[{"text":"Sunny in Paris."}],"role":"model"},` +
		`"intermediate_data":{"intermediate_responses":[["root",[{"text":"Checking."}]]],` +
		`"tool_responses":[{"id":"adk-1","name":"get_weather","response":{"sky":"clear"}}],` +
		`"tool_uses":[{"args":{"city":"Paris"},"id":"adk-1","name":"get_weather"}]},` +
		`"invocation_id":"a1","user_content":{"parts":[{"text":"Weather in Paris?"}],"role":"user"}},` +
		`{"creation_timestamp":0,"final_response":null,` +
		`"intermediate_data":{"intermediate_responses":[],"tool_responses":[],"tool_uses":[{"args":{"city":"Milan"},"name":"get_weather"}]},` +
		`"invocation_id":"a2","user_content":{"parts":[{"text":"And Rome?"}],"role":"user"}}],` +
		`"conversation_scenario":{"starting_prompt":"Weather in Paris?"},` +
		`"eval_metric":{"criterion":{"threshold":0.5},"custom_function_path":"my.metrics.inspect","metric_name":"inspect","threshold":0.5},` +
		`"expected_invocations":[` +
		`{"creation_timestamp":0,"final_response":{"parts":[{"text":"It is sunny in Paris."}],"role":"model"},` +
		`"intermediate_data":{"intermediate_responses":[],"tool_responses":[],"tool_uses":[{"args":{"city":"Paris"},"name":"get_weather"}]},` +
		`"invocation_id":"e1","user_content":{"parts":[{"text":"Weather in Paris?"}],"role":"user"}},` +
		`{"creation_timestamp":0,"final_response":null,` +
		`"intermediate_data":{"intermediate_responses":[],"tool_responses":[],"tool_uses":[{"args":{"city":"Rome"},"name":"get_weather"}]},` +
		`"invocation_id":"e2","user_content":{"parts":[{"text":"And Rome?"}],"role":"user"}}]}`
	if string(got) != want {
		t.Fatalf("input\n got %s\nwant %s", got, want)
	}

	// Without expectations: null, and the metric still runs.
	c.Expected, c.Scenario = nil, nil
	_, ms = engEval(t, config, c)
	in := ms["inspect"].Details["input"].(map[string]any)
	if v, ok := in["expected_invocations"]; !ok || v != nil || in["conversation_scenario"] != nil {
		t.Fatalf("input %v", in)
	}
}

func TestCustomMetricEnvironmentAndStatusNames(t *testing.T) {
	config := `{"criteria": {"env": 0.5}, "custom_metrics": {"env": {"command": ` + engSelfCommand(t, "env") + `}}}`
	_, ms := engEval(t, config, engCustomCase())
	m := ms["env"]
	wd, _ := filepath.Abs("testdata") // engEval's config lives in testdata/
	if m.Score != nil || m.Status != NotEvaluated || m.Details["metric"] != "env" || m.Details["case"] != "weather/1" || m.Details["wd"] != wd {
		t.Fatalf("%+v", m)
	}
}

func TestCustomMetricShellScript(t *testing.T) {
	config := `{"criteria": {"mentions_city": 0.5, "echo": 0.5},
	  "custom_metrics": {"mentions_city": {"command": ["sh", "custom_metric.sh", "mentions_city"]},
	                     "echo": {"command": ["sh", "custom_metric.sh", "echo_metric"]}}}`
	c := engCustomCase()
	cr, ms := engEval(t, config, c)
	m := ms["mentions_city"]
	// The one actual final response (the second invocation has none,
	// final_response: null) names a city; the command's reason is kept.
	if m.Score == nil || *m.Score != 1 || m.Status != Passed || m.Reason != "1 of 1 responses name a city" {
		t.Fatalf("mentions_city %+v", m)
	}
	// The command's own statuses are kept, as ADK keeps the function's.
	e := ms["echo"]
	if *e.Score != 0.25 || e.Status != Failed || e.PerInvocation[0].Status != Passed || e.PerInvocation[1].Status != Failed ||
		e.PerInvocation[1].Reason != "no" || cr.Status != Failed {
		t.Fatalf("echo %+v", e)
	}
}

func TestCustomMetricFailuresAreNotEvaluated(t *testing.T) {
	config := `{"criteria": {"slow": 0.5, "bad_json": 0.5, "fails": 0.5, "missing": 0.5, "python_only": 0.5, "response_match_score": 0.1},
	  "custom_metrics": {
	    "slow": {"command": ["sh", "custom_metric.sh", "sleep"], "timeout_s": 0.3},
	    "bad_json": {"command": ["sh", "custom_metric.sh", "bad_json"]},
	    "fails": {"command": ["sh", "custom_metric.sh", "fail"]},
	    "missing": {"command": ["./no-such-metric-program"]},
	    "python_only": {"code_config": {"name": "metrics.python_only"}}},
	  "adkproxy": {"custom_timeout_s": 30}}`
	cr, ms := engEval(t, config, engCustomCase())
	for name, want := range map[string]string{
		"slow":        `custom metric command ["sh","custom_metric.sh","sleep"]: timed out after 300ms (adkproxy.custom_timeout_s, or timeout_s of the metric)`,
		"bad_json":    `custom metric command ["sh","custom_metric.sh","bad_json"] printed no valid result: stdout:1:2: invalid JSON: invalid character 'h' in literal true (expecting 'r')`,
		"fails":       `custom metric command ["sh","custom_metric.sh","fail"]: failed: exit status 3; stderr: something broke`,
		"missing":     `custom metric command ["./no-such-metric-program"]: could not run: `,
		"python_only": `custom metric python_only (code_config.name metrics.python_only, in python3) raised ModuleNotFoundError: No module named 'metrics'`,
	} {
		m := ms[name]
		if m.Score != nil || m.Status != NotEvaluated || !strings.HasPrefix(m.Reason, want) || m.PerInvocation != nil {
			t.Errorf("%s: %v %v %q, want %q", name, m.Score, m.Status, m.Reason, want)
		}
	}
	// The run went on: the other metric was computed and decides the case.
	if ms[ResponseMatchScore].Status != Passed || cr.Status != Passed {
		t.Fatalf("case %v, response %+v", cr.Status, ms[ResponseMatchScore])
	}
}

func TestCustomMetricBadOutputShapes(t *testing.T) {
	c := engCustomCase()
	for _, tc := range []struct{ out, want string }{
		{``, "stdout is empty"},
		{`[]`, "stdout: expected an object, got a list"},
		{`{}`, "stdout: overall_score: missing"},
		{`{"overall_score": "1"}`, `stdout: overall_score: expected a number, got the string "1"`},
		{`{"overall_score": 1, "overall_eval_status": 7}`, "stdout: overall_eval_status: 7 is not an eval status (1 PASSED, 2 FAILED, 3 NOT_EVALUATED, or INFORMATIONAL)"},
		{`{"overall_score": 1, "per_invocation_results": [{}, {}, {}]}`, "stdout: per_invocation_results[2]: more per-invocation results than the case's 2 invocations"},
		{`{"overallScore": 1, "perInvocationResults": [{"score": 1, "evalStatus": "passed"}]}`, ""},
	} {
		var m MetricResult
		err := parseCustomOutput([]byte(tc.out), &c, &m)
		if tc.want == "" {
			if err != nil || *m.Score != 1 || m.PerInvocation[0].Status != Passed {
				t.Errorf("%s: %v %+v", tc.out, err, m)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.out, err, tc.want)
		}
	}
}

func TestCancelledEvaluationIsNotEvaluated(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Evaluate(ctx, nil, []Case{engCustomCase()})
	for _, m := range res.Cases[0].Metrics {
		if m.Status != NotEvaluated || m.Reason != "not evaluated: context canceled" {
			t.Errorf("%+v", m)
		}
	}

	cfg, err := ParseConfig("testdata/c.json", []byte(`{"criteria": {"slow": 0.5}, "custom_metrics": {"slow": {"command": ["sh", "custom_metric.sh", "sleep"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res = Evaluate(ctx, cfg, []Case{engCustomCase()})
	if m := res.Cases[0].Metrics[0]; m.Status != NotEvaluated || !strings.Contains(m.Reason, "cancelled after") {
		t.Fatalf("%+v", m)
	}
}

// ADK's newer INFORMATIONAL status: the metric reports its value and is
// skipped like NOT_EVALUATED, never failing a case.
func TestCustomMetricInformationalStatus(t *testing.T) {
	c := engCustomCase()
	var m MetricResult
	if err := parseCustomOutput([]byte(`{"overall_score": 42, "overall_eval_status": "INFORMATIONAL"}`), &c, &m); err != nil {
		t.Fatal(err)
	}
	if !m.Informational || m.Status != NotEvaluated || m.Score == nil || *m.Score != 42 {
		t.Fatalf("%+v", m)
	}
	r := &Result{Cases: []CaseResult{{Case: &c, Status: Passed, Metrics: []MetricResult{m, {Metric: "x", Status: Passed}}}}, RequireAll: true}
	if s := ResultStatus(r); s != Passed || len(SkippedCriteria(r)) != 0 {
		t.Errorf("status %v, skipped %q", s, SkippedCriteria(r))
	}
}
