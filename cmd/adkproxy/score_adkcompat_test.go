package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeTestFile writes data to dir/name and returns the path.
func writeTestFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A config adk eval accepts, with safety_v1 beside computed criteria: the
// case PASSED by ADK's rule (NOT_EVALUATED criteria are skipped), so the run
// passes, and stderr says which criterion was skipped and why;
// --require-all fails it.
func TestScoreSkipsNotEvaluatedAsADK(t *testing.T) {
	t.Parallel()
	cfg := writeTestFile(t, t.TempDir(), "test_config.json", `{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8, "safety_v1": 0.8}}`)
	args := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg}
	r := adkproxy(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "CASE paris_then_tokyo  PASSED") ||
		!strings.Contains(r.stdout, "\nPASSED: 1 of 1 case passed; 2 of 3 criteria passed (1 NOT_EVALUATED)\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "adkproxy: not evaluated, skipped when judging their cases") ||
		!strings.Contains(r.stderr, `case "paris_then_tokyo": safety_v1: `) || !strings.Contains(r.stderr, "Vertex AI") {
		t.Errorf("stderr does not name the skipped criterion and why:\n%s", r.stderr)
	}

	r = adkproxy(t, nil, append(args, "--require-all")...)
	if r.code != exitFailure || !strings.Contains(r.stdout, "\nNOT_EVALUATED: 1 of 1 case passed; 2 of 3 criteria passed (1 NOT_EVALUATED)\n") ||
		!strings.Contains(r.stderr, "--require-all: the run fails") {
		t.Errorf("--require-all: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, []string{"ADKPROXY_REQUIRE_ALL=true"}, args...)
	if r.code != exitFailure {
		t.Errorf("ADKPROXY_REQUIRE_ALL=true: exit %d, want 1", r.code)
	}
}

// twoCaseEvalSet is the demo's eval set with a second case, "other", that
// no recorded session starts like.
func twoCaseEvalSet(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(weatherEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]any
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	cases := set["eval_cases"].([]any)
	other := map[string]any{"eval_id": "other", "conversation": []any{map[string]any{
		"user_content": map[string]any{"parts": []any{map[string]any{"text": "Weather on Mars?"}}}}}}
	set["eval_cases"] = append(cases, other)
	out, _ := json.Marshal(set)
	return writeTestFile(t, dir, "weather.evalset.json", string(out))
}

// ADK's "file.evalset.json:case_1,case_2" selects cases; an unknown id is
// exit 65 naming it.
func TestScoreSelectsCasesAsADK(t *testing.T) {
	t.Parallel()
	set := twoCaseEvalSet(t, t.TempDir())
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", set)
	if r.code != 0 || !strings.Contains(r.stderr, `eval case "other"`) {
		t.Fatalf("whole set: exit %d, want 0 with case other unpaired\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", set+":paris_then_tokyo")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "CASE paris_then_tokyo  PASSED") || strings.Contains(r.stdout, "other") {
		t.Errorf("selected: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", set+":paris_then_tokyo,nope")
	if r.code != exitDataErr || !strings.Contains(r.stderr, `no eval case "nope"`) || !strings.Contains(r.stderr, set) {
		t.Errorf("unknown id: exit %d, want 65 naming it\nstderr:\n%s", r.code, r.stderr)
	}
}

// Without --config, the test_config.json beside the eval set is used, as
// ADK does for its test files; --config wins over it.
func TestScoreUsesTestConfigBesideEvalSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := twoCaseEvalSet(t, dir)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {"response_match_score": 0.8}}`)
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", set+":paris_then_tokyo")
	if r.code != 0 || !strings.Contains(r.stderr, "adkproxy: config: "+cfg+" (beside the eval set") ||
		!strings.Contains(r.stdout, "response_match_score") || strings.Contains(r.stdout, "tool_trajectory_avg_score") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", set+":paris_then_tokyo", "--config", weatherConfig)
	if r.code != 0 || strings.Contains(r.stderr, "beside the eval set") || !strings.Contains(r.stdout, "trajectory_f1") {
		t.Errorf("--config: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// Three runs of the demo case, the second answering about other cities; a
// custom metric scores Paris and Tokyo 1, Osaka 0 and Nagoya not at all.
// Runs 1 and 3 score [1, 1], run 2 [0, none]: ADK pools the invocations,
// 4 of 5 = 0.8 ≥ 0.75, PASSED, where the mean of the runs' means, 2/3,
// would fail. Every run's invocations are in the result.
func TestScorePoolsRepeatedRunsAsADK(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	data, err := os.ReadFile(filepath.Join(weatherCassette, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	other := strings.NewReplacer(`"city": "Paris"`, `"city": "Osaka"`, `"city": "Tokyo"`, `"city": "Nagoya"`).Replace(string(data))
	for name, body := range map[string]string{"run1": string(data), "run2": other, "run3": string(data)} {
		writeTestFile(t, runs, name+".yaml", strings.Replace(body, "name: default", "name: "+name, 1))
	}
	writeTestFile(t, dir, "cities.py", `import json, sys
req = json.load(sys.stdin)
scores = {"Paris": 1.0, "Tokyo": 1.0, "Osaka": 0.0}
per = []
for inv in req["actual_invocations"]:
    city = inv["intermediate_data"]["tool_uses"][0]["args"]["city"]
    per.append({"score": scores.get(city)})
vals = [p["score"] for p in per if p["score"] is not None]
print(json.dumps({"overall_score": sum(vals) / len(vals) if vals else None, "per_invocation_results": per}))
`)
	cfg := writeTestFile(t, dir, "config.json", `{"criteria": {"cities": 0.75},
	  "custom_metrics": {"cities": {"command": ["python3", "cities.py"]}}}`)
	out := filepath.Join(dir, "result.json")
	r := adkproxy(t, nil, "score", "--cassettes", runs, "--expected", weatherEvalSet, "--config", cfg, "--num-runs", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "CASE paris_then_tokyo  PASSED  (session run1/1, 6 invocations, 3 runs pooled)") ||
		!strings.Contains(r.stdout, "cities  0.8") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, nil, "score", "--cassettes", runs, "--expected", weatherEvalSet, "--config", cfg, "--num-runs", "3", "--format", "json", "--out", out)
	var doc struct {
		Cases []struct {
			PerInvocation []struct {
				Actual  map[string]any `json:"actual_invocation"`
				Metrics []struct {
					Score *float64 `json:"score"`
				} `json:"eval_metric_results"`
			} `json:"eval_metric_result_per_invocation"`
			Overall []struct {
				Score   float64        `json:"score"`
				Details map[string]any `json:"details"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(readFile(t, out)), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("%v\n%s", err, readFile(t, out))
	}
	c := doc.Cases[0]
	if len(c.PerInvocation) != 6 || c.Overall[0].Score != 0.8 || len(c.Overall[0].Details["runs"].([]any)) != 3 {
		t.Errorf("%d invocations, score %v, details %v", len(c.PerInvocation), c.Overall[0].Score, c.Overall[0].Details)
	}
	if len(c.PerInvocation) == 6 && (c.PerInvocation[2].Metrics[0].Score == nil || *c.PerInvocation[2].Metrics[0].Score != 0 || c.PerInvocation[3].Metrics[0].Score != nil) {
		t.Errorf("run 2's invocations: %+v %+v", c.PerInvocation[2], c.PerInvocation[3])
	}

	// One session for three runs: the missing runs fail the case.
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--num-runs", "3")
	if r.code != exitFailure || !strings.Contains(r.stdout, "2 of 3 runs have no recorded session") {
		t.Errorf("missing runs: exit %d\nstdout:\n%s", r.code, r.stdout)
	}
}

// score --history DIR saves ADK's EvalSetResult where adk web reads an
// app's eval history, with each case's session_details and user_id (the
// eval case's session_input user) as ADK writes them.
func TestScoreWritesEvalHistoryWithSessionDetails(t *testing.T) {
	t.Parallel()
	app := filepath.Join(t.TempDir(), "weather_agent")
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--history", app)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(app, ".adk", "eval_history", "weather_agent_weather_*.evalset_result.json"))
	if len(files) != 1 || !strings.Contains(r.stderr, "adkproxy: eval history: "+files[0]+"\n") {
		t.Fatalf("history files %v\nstderr:\n%s", files, r.stderr)
	}
	var doc struct {
		ID    string `json:"eval_set_result_id"`
		Name  string `json:"eval_set_result_name"`
		Cases []struct {
			UserID  string `json:"user_id"`
			Session struct {
				ID      string `json:"id"`
				AppName string `json:"app_name"`
				UserID  string `json:"user_id"`
				Events  []struct {
					Author       string `json:"author"`
					InvocationID string `json:"invocation_id"`
					Content      struct {
						Role  string           `json:"role"`
						Parts []map[string]any `json:"parts"`
					} `json:"content"`
				} `json:"events"`
			} `json:"session_details"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(readFile(t, files[0])), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("%v\n%s", err, readFile(t, files[0]))
	}
	if filepath.Base(files[0]) != doc.Name+".evalset_result.json" || !strings.HasPrefix(doc.ID, "weather_agent_weather_") {
		t.Errorf("id %q name %q file %s", doc.ID, doc.Name, files[0])
	}
	c := doc.Cases[0]
	if c.UserID != "demo_user" || c.Session.UserID != "demo_user" || c.Session.AppName != "weather_agent" || c.Session.ID != "default/1" {
		t.Errorf("user %q session %+v", c.UserID, c.Session)
	}
	// Per invocation: the user, the get_weather call, its response, the answer.
	var shape []string
	for _, e := range c.Session.Events {
		for k := range e.Content.Parts[0] {
			shape = append(shape, e.Author+":"+e.Content.Role+":"+k)
		}
	}
	want := "user:user:text agent:model:function_call agent:user:function_response agent:model:text"
	if got := strings.Join(shape, " "); got != want+" "+want {
		t.Errorf("events %s\nwant %s %s", got, want, want)
	}
}

// debianPython is the system's python3 without pydantic or google.adk, for
// the plain-objects path.
func debianPython(t *testing.T) string {
	t.Helper()
	const p = "/usr/bin/python3"
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is needed: %v", p, err)
		}
		t.Skipf("%s: %v", p, err)
	}
	return p
}

// A metric module written for adk eval (it imports google.adk, is async,
// returns EvaluationResult with PerInvocationResult) runs unchanged by its
// code_config.name in a Python without ADK; a sync one returning any object
// with the three attributes works too; an exception is NOT_EVALUATED with
// the traceback's last line; metric_info is shown, and a score outside its
// interval is refused.
func TestScoreRunsADKCustomMetricFunctions(t *testing.T) {
	t.Parallel()
	python := debianPython(t)
	dir := t.TempDir()
	writeTestFile(t, dir, "metrics/__init__.py", "")
	writeTestFile(t, dir, "metrics/weather.py", `from typing import Optional
from google.adk.evaluation.eval_case import ConversationScenario, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult


async def city_in_answer(eval_metric: EvalMetric, actual_invocations: list[Invocation],
                         expected_invocations: Optional[list[Invocation]],
                         conversation_scenario: Optional[ConversationScenario] = None) -> EvaluationResult:
    per = []
    for inv in actual_invocations:
        text = "\n".join(p.text for p in inv.final_response.parts if p.text)
        city = inv.intermediate_data.tool_uses[0].args["city"]
        score = 1.0 if city in text and expected_invocations[0].user_content.parts[0].text else 0.0
        status = EvalStatus.PASSED if score >= eval_metric.threshold else EvalStatus.FAILED
        per.append(PerInvocationResult(actual_invocation=inv, score=score, eval_status=status))
    print("the metric's own output goes to stderr")
    overall = sum(p.score for p in per) / len(per)
    return EvaluationResult(overall_score=overall, per_invocation_results=per,
                            overall_eval_status=EvalStatus.PASSED if overall >= eval_metric.threshold else EvalStatus.FAILED)


class Verdict:
    def __init__(self, score):
        self.overall_score = score
        self.overall_eval_status = None
        self.per_invocation_results = []


def answers(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return Verdict(float(len(actual_invocations)) / 4)


def too_big(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return Verdict(7.0)


def broken(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return {"a": 1}["missing_key"]
`)
	cfg := writeTestFile(t, dir, "test_config.json", `{
  "criteria": {"tool_trajectory_avg_score": 1.0, "city_in_answer": 1.0, "answers": 0.5, "too_big": 0.5, "broken": 0.5},
  "custom_metrics": {
    "city_in_answer": {"code_config": {"name": "metrics.weather.city_in_answer"},
                       "metric_info": {"metric_name": "city_in_answer", "description": "The answer names the city looked up.",
                                       "metric_value_info": {"interval": {"min_value": 0.0, "max_value": 1.0}}}},
    "answers": {"code_config": {"name": "metrics.weather.answers"}},
    "too_big": {"code_config": {"name": "metrics.weather.too_big"}, "metric_info": {"metric_value_info": {"interval": {"min_value": 0, "max_value": 5, "open_at_max": true}}}},
    "broken": {"code_config": {"name": "metrics.weather.broken"}}
  }}`)
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--python", python, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var doc struct {
		Cases []struct {
			Overall []struct {
				Metric  string         `json:"metric_name"`
				Score   *float64       `json:"score"`
				Status  int            `json:"eval_status"`
				Details map[string]any `json:"details"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, m := range doc.Cases[0].Overall {
		s := "null"
		if m.Score != nil {
			s = strconv.FormatFloat(*m.Score, 'g', -1, 64)
		}
		got[m.Metric] = fmt.Sprintf("%s %d %v %v", s, m.Status, m.Details["python_objects"], m.Details["reason"])
	}
	for metric, want := range map[string]string{
		"city_in_answer": "1 1 plain <nil>",
		"answers":        "0.5 1 plain <nil>",
		"too_big":        "null 3 plain score 7 is outside metric_info's interval [0, 5)",
		"broken":         "null 3 <nil> custom metric broken (code_config.name metrics.weather.broken, in " + python + ") raised KeyError: 'missing_key'",
	} {
		if got[metric] != want {
			t.Errorf("%s: %s\nwant %s", metric, got[metric], want)
		}
	}
	// The table shows metric_info.
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--python", python)
	if !strings.Contains(r.stdout, "metric_info: The answer names the city looked up. (values in [0, 1])") {
		t.Errorf("table:\n%s", r.stdout)
	}
	// A malformed metric_info stops the run before anything is scored.
	bad := writeTestFile(t, dir, "bad.json", `{"criteria": {"answers": 0.5}, "custom_metrics": {"answers": {"code_config": {"name": "metrics.weather.answers"},
	  "metric_info": {"metric_value_info": {"interval": {"min_value": 2, "max_value": 1}}}}}}`)
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", bad, "--python", python)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "custom_metrics.answers.metric_info.metric_value_info.interval: min_value 2 is above max_value 1") {
		t.Errorf("bad metric_info: exit %d\n%s", r.code, r.stderr)
	}
	// No such Python: the reason says what to do.
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--python", "/nonexistent/python3", "--require-all")
	if r.code != exitFailure || !strings.Contains(r.stdout, "/nonexistent/python3 was not found: install Python or give its path with --python") {
		t.Errorf("missing python: exit %d\n%s", r.code, r.stdout)
	}
}
