package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
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
	want := "user:user:text gemini-2.5-flash:model:function_call gemini-2.5-flash:user:function_response gemini-2.5-flash:model:text"
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

// Issue 28's Done-when: a test_config.json, eval set and custom metric
// module written for adk eval — safety_v1 and a code_config.name metric
// among the criteria — score here unchanged: the config is found beside
// the eval set, the metric module imports google.adk and runs in a Python
// without it, and after one recording the run replays offline (no
// credentials, no endpoint) to the same result.
func TestScoreADKFilesUnchangedOfflineAfterOneRecording(t *testing.T) {
	t.Parallel()
	python := debianPython(t)
	tests := testutil.OutDir(t)
	writeTestFile(t, tests, "weather.evalset.json", readFile(t, weatherEvalSet))
	writeTestFile(t, tests, "test_config.json", `{
  "criteria": {
    "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "EXACT"},
    "response_match_score": 0.5,
    "safety_v1": 0.7,
    "city_named": 1.0
  },
  "custom_metrics": {
    "city_named": {
      "code_config": {"name": "weather_metrics.city_named"},
      "metric_info": {"metric_name": "city_named", "description": "The answer names the city asked about.",
                      "metric_value_info": {"interval": {"min_value": 0.0, "max_value": 1.0}}}
    }
  }
}`)
	writeTestFile(t, tests, "weather_metrics.py", `from typing import Optional

from google.adk.evaluation.eval_case import ConversationScenario, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult


def city_named(eval_metric: EvalMetric, actual_invocations: list[Invocation],
               expected_invocations: Optional[list[Invocation]],
               conversation_scenario: Optional[ConversationScenario] = None) -> EvaluationResult:
    results = []
    for actual in actual_invocations:
        answer = " ".join(p.text for p in actual.final_response.parts if p.text)
        asked = actual.user_content.parts[0].text
        score = 1.0 if any(w.strip("?") in answer for w in asked.split() if w[:1].isupper() and len(w) > 3) else 0.0
        results.append(PerInvocationResult(actual_invocation=actual, score=score,
                                           eval_status=EvalStatus.PASSED if score >= eval_metric.threshold else EvalStatus.FAILED))
    overall = sum(r.score for r in results) / len(results)
    return EvaluationResult(overall_score=overall, per_invocation_results=results,
                            overall_eval_status=EvalStatus.PASSED if overall >= eval_metric.threshold else EvalStatus.FAILED)
`)
	fake := &fakeVertex{}
	up := httptest.NewServer(fake)
	sa := serviceAccountFile(t, t.TempDir(), up.URL+"/token")
	project := []string{"GOOGLE_CLOUD_PROJECT=proj-1", "GOOGLE_CLOUD_LOCATION=us-central1"}
	judgeDir := filepath.Join(tests, "judge")
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", filepath.Join(tests, "weather.evalset.json"),
			"--judge-cassettes", judgeDir, "--python", python, "--format", "json", "--out", out}, extra...)
	}
	rec := adkproxy(t, append(project, "GOOGLE_APPLICATION_CREDENTIALS="+sa), args(filepath.Join(tests, "recorded.json"), "--judge-mode", "record", "--vertex-base-url", up.URL)...)
	up.Close()
	if rec.code != 0 || len(fake.bodies) != 2 || !strings.Contains(rec.stderr, "test_config.json (beside the eval set") {
		t.Fatalf("record: exit %d, %d Vertex calls\nstderr:\n%s", rec.code, len(fake.bodies), rec.stderr)
	}
	rep := adkproxy(t, project, args(filepath.Join(tests, "replayed.json"), "--require-all")...)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\nstderr:\n%s\n%s", rep.code, rep.stderr, readFile(t, filepath.Join(tests, "replayed.json")))
	}
	recorded, replayed := readFile(t, filepath.Join(tests, "recorded.json")), readFile(t, filepath.Join(tests, "replayed.json"))
	if string(withoutRunID([]byte(recorded))) != string(withoutRunID([]byte(replayed))) {
		t.Errorf("replay differs from the recording:\n%s\n---\n%s", recorded, replayed)
	}
	for _, want := range []string{`"metric_name": "safety_v1",`, `"metric_name": "city_named",`, `"python_objects": "plain"`, `"final_eval_status": 1,`} {
		if !strings.Contains(replayed, want) {
			t.Errorf("the result lacks %s", want)
		}
	}
}

// pydanticPython is a python3 where pydantic imports (the stand-in for ADK
// in testdata/adkstandin needs it): python3 on PATH, else Debian's, which
// .ci/run gives python3-pydantic. Skipped without one unless CI is set.
func pydanticPython(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			tried = append(tried, p+": not found")
			continue
		}
		out, err := exec.Command(path, "-c", "import pydantic; print(pydantic.VERSION)").CombinedOutput()
		if err == nil {
			return path
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		tried = append(tried, path+": "+lines[len(lines)-1])
	}
	msg := "no python3 with pydantic (Debian: apt-get install python3-pydantic): " + strings.Join(tried, "; ")
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// pydanticCassette is one session of two invocations whose tool call
// carries a string, an int and floats (2.0 among them) in its args.
func pydanticCassette(t *testing.T, dir string) string {
	t.Helper()
	const (
		user1  = `{"parts":[{"text":"Convert 12.5 EUR, 3 times, at 2.0"}],"role":"user"}`
		call   = `{"functionCall":{"id":"c1","name":"convert","args":{"currency":"EUR","amount":12.5,"times":3,"rate":2.0}}}`
		result = `{"parts":[{"functionResponse":{"id":"c1","name":"convert","response":{"total":75.0}}}],"role":"user"}`
		final1 = `{"parts":[{"text":"That makes 75 USD."}],"role":"model"}`
		user2  = `{"parts":[{"text":"Thanks!"}],"role":"user"}`
		final2 = `{"parts":[{"text":"You are welcome."}],"role":"model"}`
	)
	answer := func(parts string) string {
		return `{"candidates":[{"content":{"parts":` + parts + `,"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash"}`
	}
	step := func(n int, req, resp string) string { return testutil.GenerateContentStep(n, "money_agent", req, resp) }
	body := func(contents ...string) string { return `{"contents":[` + strings.Join(contents, ",") + `]}` }
	echo := `{"parts":[` + call + `],"role":"model"}`
	yaml := `version: 2
name: money
sessions:
  - id: 1
    invocations:
      - id: 1
        user: Convert 12.5 EUR, 3 times, at 2.0
        steps:
` + step(0, body(user1), answer(`[`+call+`]`)) +
		step(1, body(user1, echo, result), answer(`[{"text":"That makes 75 USD."}]`)) + `      - id: 2
        user: Thanks!
        steps:
` + step(0, body(user1, echo, result, final1, user2), answer(`[{"text":"You are welcome."}]`))
	cassettes := filepath.Join(dir, "cassettes")
	writeTestFile(t, cassettes, "money.yaml", yaml)
	return cassettes
}

// Where google.adk imports, a custom metric function by code_config.name
// gets ADK's pydantic objects: the metric (sync and async) checks inside
// Python that its arguments are instances of the stand-in's pydantic
// classes (testdata/adkstandin: ADK's class and field names, camelCase
// aliases, unknown keys forbidden) holding the cassette's and eval set's
// values, numbers keeping int or float; a failed check raises, which the
// result names. Its pydantic EvaluationResult is read back: overall score
// and status as returned (not recomputed from the threshold) and the score
// and status of each invocation.
func TestScoreCustomMetricGetsADKPydanticObjects(t *testing.T) {
	t.Parallel()
	python := pydanticPython(t)
	standin, err := filepath.Abs(filepath.Join("testdata", "adkstandin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cassettes := pydanticCassette(t, dir)
	evalset := writeTestFile(t, dir, "money.evalset.json", `{"eval_set_id": "money", "eval_cases": [{"eval_id": "money", "conversation": [
  {"invocation_id": "e1", "user_content": {"parts": [{"text": "Convert 12.5 EUR, 3 times, at 2.0"}], "role": "user"},
   "final_response": {"parts": [{"text": "That makes 75 USD."}], "role": "model"},
   "intermediate_data": {"tool_uses": [{"name": "convert", "args": {"currency": "EUR", "amount": 12.5, "times": 3, "rate": 2.0}}]}},
  {"invocation_id": "e2", "user_content": {"parts": [{"text": "Thanks!"}], "role": "user"},
   "final_response": {"parts": [{"text": "You are welcome."}], "role": "model"}}]}]}`)
	writeTestFile(t, dir, "moneymetrics.py", `from google.adk.evaluation.eval_case import IntermediateData, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult
from google.genai import types


def check(eval_metric, actual, expected, scenario):
    fails = []

    def want(cond, what):
        if not cond:
            fails.append(what)
    want(isinstance(eval_metric, EvalMetric), "eval_metric is %s" % type(eval_metric))
    want(eval_metric.threshold == 0.5, "threshold %r" % eval_metric.threshold)
    want(eval_metric.custom_function_path and eval_metric.custom_function_path.startswith("moneymetrics."),
         "custom_function_path %r" % eval_metric.custom_function_path)
    want(len(actual) == 2 and all(isinstance(i, Invocation) for i in actual), "actual %r" % actual)
    want(len(expected) == 2 and all(isinstance(i, Invocation) for i in expected), "expected %r" % expected)
    for name, invs in (("actual", actual), ("expected", expected)):
        inv = invs[0]
        want(isinstance(inv.user_content, types.Content) and isinstance(inv.user_content.parts[0], types.Part),
             "%s user_content %r" % (name, inv.user_content))
        want(inv.user_content.parts[0].text == "Convert 12.5 EUR, 3 times, at 2.0", "%s text %r" % (name, inv.user_content.parts[0].text))
        want(isinstance(inv.final_response, types.Content) and inv.final_response.parts[0].text == "That makes 75 USD.",
             "%s final_response %r" % (name, inv.final_response))
        want(isinstance(inv.intermediate_data, IntermediateData), "%s intermediate_data %r" % (name, inv.intermediate_data))
        call = inv.intermediate_data.tool_uses[0]
        want(isinstance(call, types.FunctionCall) and call.name == "convert", "%s tool use %r" % (name, call))
        args = call.args
        want(args == {"currency": "EUR", "amount": 12.5, "times": 3, "rate": 2.0}, "%s args %r" % (name, args))
        # Known gap: a whole float recorded in a cassette (rate 2.0) reaches
        # the metric as int, as the cassette's args are decoded to float64;
        # the eval set keeps the literal.
        want(type(args.get("times")) is int and type(args.get("amount")) is float and
             (type(args.get("rate")) is float or name == "actual"),
             "%s arg types %r" % (name, {k: type(v).__name__ for k, v in args.items()}))
        want(expected[1].user_content.parts[0].text == "Thanks!", "expected[1] %r" % expected[1])
    want(actual[0].intermediate_data.tool_responses[0].response == {"total": 75.0},
         "tool response %r" % actual[0].intermediate_data.tool_responses)
    want(scenario is None, "scenario %r" % scenario)
    if fails:
        raise AssertionError("; ".join(fails))
    per = [PerInvocationResult(actual_invocation=actual[0], expected_invocation=expected[0], score=1.0, eval_status=EvalStatus.PASSED),
           PerInvocationResult(actual_invocation=actual[1], expected_invocation=expected[1], score=0.25, eval_status=EvalStatus.FAILED)]
    # times / 4 (0.75) is above the 0.5 threshold; the status the function
    # gives is what counts.
    return EvaluationResult(overall_score=actual[0].intermediate_data.tool_uses[0].args["times"] / 4,
                            overall_eval_status=EvalStatus.FAILED, per_invocation_results=per)


def sync_metric(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return check(eval_metric, actual_invocations, expected_invocations, conversation_scenario)


async def async_metric(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return check(eval_metric, actual_invocations, expected_invocations, conversation_scenario)
`)
	cfg := writeTestFile(t, dir, "test_config.json", `{
  "criteria": {"sync_metric": 0.5, "async_metric": 0.5},
  "custom_metrics": {
    "sync_metric": {"code_config": {"name": "moneymetrics.sync_metric"}},
    "async_metric": {"code_config": {"name": "moneymetrics.async_metric"}}
  }}`)
	// No __pycache__ written into the source tree.
	env := []string{"PYTHONPATH=" + standin, "PYTHONDONTWRITEBYTECODE=1"}
	r := adkproxy(t, env, "score", "--cassettes", cassettes, "--expected", evalset, "--config", cfg, "--python", python, "--format", "json")
	var doc struct {
		Cases []struct {
			Overall []struct {
				Metric  string         `json:"metric_name"`
				Score   *float64       `json:"score"`
				Status  int            `json:"eval_status"`
				Details map[string]any `json:"details"`
			} `json:"overall_eval_metric_results"`
			PerInvocation []struct {
				Results []struct {
					Metric string   `json:"metric_name"`
					Score  *float64 `json:"score"`
					Status int      `json:"eval_status"`
				} `json:"eval_metric_results"`
			} `json:"eval_metric_result_per_invocation"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("exit %d: %v\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
	}
	c := doc.Cases[0]
	for _, metric := range []string{"sync_metric", "async_metric"} {
		var got string
		for _, m := range c.Overall {
			if m.Metric == metric {
				got = fmt.Sprintf("%s %d %v %v", fmtScore(m.Score), m.Status, m.Details["python_objects"], m.Details["reason"])
			}
		}
		if want := "0.75 2 adk " + metric + " reported FAILED with score 0.75 (threshold 0.5): invocation 2: " + metric + " 0.25 is below the threshold 0.5"; got != want {
			t.Errorf("%s overall: %s\nwant %s", metric, got, want)
		}
		var per []string
		for _, inv := range c.PerInvocation {
			for _, m := range inv.Results {
				if m.Metric == metric {
					per = append(per, fmt.Sprintf("%s %d", fmtScore(m.Score), m.Status))
				}
			}
		}
		if got, want := strings.Join(per, ", "), "1 1, 0.25 2"; got != want {
			t.Errorf("%s per invocation: %s\nwant %s", metric, got, want)
		}
	}
	if r.code != exitFailure {
		t.Errorf("exit %d, want %d (the metrics returned FAILED)\n%s", r.code, exitFailure, r.stderr)
	}
}

func fmtScore(s *float64) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprint(*s)
}
