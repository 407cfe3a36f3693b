package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	junit "github.com/joshdk/go-junit"
)

// The shipped demo: examples/weather's cassettes, its hand-written eval set
// and its eval config.
var (
	weatherDir      = filepath.Join(testutil.RepoRoot(), "examples", "weather")
	weatherCassette = filepath.Join(weatherDir, "cassettes")
	weatherEvalSet  = filepath.Join(weatherDir, "weather.evalset.json")
	weatherConfig   = filepath.Join(weatherDir, "eval_config.json")
)

func TestScoreDemoPasses(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", weatherConfig)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"EVAL SET weather\n",
		"CASE paris_then_tokyo  PASSED  (session default/1, 2 invocations)\n",
		"tool_trajectory_avg_score", "response_match_score", "trajectory_f1", "total_tokens", "cost_usd", "latency_invocation_ms",
		"≤ 5000",
		"\nPASSED: 1 of 1 case passed; 6 of 6 criteria passed\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "FAILED") || strings.Contains(r.stdout, "NOT_EVALUATED") || r.stderr != "" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// A changed expectation fails the run, and the table says which invocation
// differs and how.
func TestScoreFailureExplainsItself(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(weatherEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	london := strings.Replace(string(data), `"args": {"city": "Tokyo"}`, `"args": {"city": "London"}`, 1)
	if london == string(data) {
		t.Fatal("the demo eval set no longer expects Tokyo")
	}
	path := filepath.Join(t.TempDir(), "london.evalset.json")
	os.WriteFile(path, []byte(london), 0o644)
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", path)
	if r.code != exitFailure {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The table's own summary ends stdout, so stderr stays quiet.
	lines := strings.Split(r.stdout, "\n")
	reason := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "tool_trajectory_avg_score") && strings.Contains(l, "FAILED") {
			reason = i + 1
		}
	}
	if reason < 0 || reason >= len(lines) || !strings.Contains(lines[reason], "invocation 2") ||
		!strings.Contains(lines[reason], "London") || !strings.Contains(lines[reason], "Tokyo") {
		t.Errorf("no reason below the failing metric:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "\nFAILED: 0 of 1 case passed (1 FAILED)") || r.stderr != "" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	// Other formats on stdout: the verdict goes to stderr as well.
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", path, "--format", "markdown")
	if r.code != exitFailure || !strings.HasPrefix(r.stdout, "## ❌ adkproxy score: weather") ||
		!strings.HasPrefix(r.stderr, "adkproxy: FAILED: 0 of 1 case passed") {
		t.Errorf("markdown: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestScoreFormatsToFile(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	args := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", weatherConfig}

	out := filepath.Join(dir, "result.json")
	r := adkproxy(t, nil, append(args, "--format", "json", "--out", out)...)
	if r.code != 0 || r.stdout != "" || r.stderr != "adkproxy: PASSED: 1 of 1 case passed; 6 of 6 criteria passed (json written to "+out+")\n" {
		t.Fatalf("json: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(out)
	var doc struct {
		EvalSetResultID string `json:"eval_set_result_id"`
		EvalSetID       string `json:"eval_set_id"`
		Cases           []struct {
			EvalID  string `json:"eval_id"`
			Status  int    `json:"final_eval_status"`
			Session string `json:"session_id"`
			Overall []struct {
				Metric string `json:"metric_name"`
				Status int    `json:"eval_status"`
			} `json:"overall_eval_metric_results"`
			PerInvocation []struct {
				Actual   map[string]any `json:"actual_invocation"`
				Expected map[string]any `json:"expected_invocation"`
			} `json:"eval_metric_result_per_invocation"`
		} `json:"eval_case_results"`
	}
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &doc) != nil {
		t.Fatalf("not a plain EvalSetResult object:\n%s", data)
	}
	if doc.EvalSetID != "weather" || !strings.HasPrefix(doc.EvalSetResultID, "adkproxy_weather_") || len(doc.Cases) != 1 ||
		doc.Cases[0].EvalID != "paris_then_tokyo" || doc.Cases[0].Status != 1 || doc.Cases[0].Session != "default/1" ||
		len(doc.Cases[0].Overall) != 6 || len(doc.Cases[0].PerInvocation) != 2 || doc.Cases[0].PerInvocation[1].Expected["invocation_id"] != "e-tokyo" {
		t.Fatalf("result %+v", doc)
	}
	for _, m := range doc.Cases[0].Overall {
		if m.Status != 1 {
			t.Errorf("%s: status %d", m.Metric, m.Status)
		}
	}

	out = filepath.Join(dir, "junit.xml")
	r = adkproxy(t, []string{"ADKPROXY_FORMAT=junit", "ADKPROXY_OUT=" + out}, args...) // flags from the environment
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("junit: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	suites, err := junit.IngestFile(out)
	if err != nil || len(suites) != 1 {
		t.Fatalf("junit: %v %v", err, suites)
	}
	suites[0].Aggregate()
	if s := suites[0]; s.Name != "weather" || s.Totals.Tests != 6 || s.Totals.Passed != 6 || s.Tests[0].Name != "paris_then_tokyo / tool_trajectory_avg_score" {
		t.Errorf("junit suite %+v", s)
	}

	r = adkproxy(t, nil, append(args, "--format", "markdown")...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "## ✅ adkproxy score: weather\n") || !strings.Contains(r.stdout, "| `trajectory_f1` | 1 | 1 | ✅ PASSED |") {
		t.Errorf("markdown: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// Sessions and eval cases that find no partner are listed on stderr and
// in the output, and decide nothing by themselves.
func TestScoreReportsUnpaired(t *testing.T) {
	t.Parallel()
	data, _ := os.ReadFile(weatherEvalSet)
	var set map[string]any
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	cases := set["eval_cases"].([]any)
	extra, _ := json.Marshal(cases[0])
	var ghost map[string]any
	json.Unmarshal(extra, &ghost)
	ghost["eval_id"] = "ghost"
	ghost["conversation"].([]any)[0].(map[string]any)["user_content"] = map[string]any{"parts": []any{map[string]any{"text": "Never asked"}}, "role": "user"}
	set["eval_cases"] = append(cases, ghost)
	data, _ = json.Marshal(set)
	path := filepath.Join(t.TempDir(), "two.evalset.json")
	os.WriteFile(path, data, 0o644)

	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", path)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, `adkproxy: not scored: eval case "ghost"`) || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stdout, "UNPAIRED (not scored):\n  eval case \"ghost\"") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// Without --expected only what needs no expectation can be judged: ADK's
// default criteria compare with expectations, so the case is NOT_EVALUATED
// and the run fails.
func TestScoreWithoutExpectations(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette)
	if r.code != exitFailure || !strings.Contains(r.stdout, "CASE default  NOT_EVALUATED") ||
		!strings.Contains(r.stdout, "\nNOT_EVALUATED: 0 of 1 case passed (1 NOT_EVALUATED); 0 of 2 criteria passed (2 NOT_EVALUATED)\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestScoreExitStatuses(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	broken := filepath.Join(tmp, "broken.evalset.json")
	os.WriteFile(broken, []byte(`{"eval_set_id": "x", "eval_cases": [{"eval_id": "a", "conversation": [{}]}]}`), 0o644)
	badConfig := filepath.Join(tmp, "bad_config.json")
	os.WriteFile(badConfig, []byte(`{"criterias": {}}`), 0o644)
	corrupt := filepath.Join(tmp, "corrupt")
	os.MkdirAll(corrupt, 0o755)
	os.WriteFile(filepath.Join(corrupt, "default.yaml"), []byte("version: 7\n"), 0o644)
	aFile := filepath.Join(tmp, "file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	base := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet}
	for _, tc := range []struct {
		code  int
		args  []string
		in    string // in stderr
		lines int    // most stderr lines
	}{
		{exitUsage, []string{"score"}, "--cassettes PATH is required", 1},
		{exitUsage, append(base, "--format", "xml"), `--format "xml": want table, json, junit, markdown, html, csv or jsonl`, 1},
		{exitUsage, append(base, "extra"), "name different cassettes", 1},
		{exitUsage, append(base, "--bogus"), "flag provided but not defined", 1},
		{exitDataErr, []string{"score", "--cassettes", filepath.Join(tmp, "missing")}, "does not exist", 1},
		{exitDataErr, []string{"score", "--cassettes", corrupt}, "default.yaml", 2},
		{exitDataErr, []string{"score", "--cassettes", weatherCassette, "--expected", filepath.Join(tmp, "missing.evalset.json")}, "--expected:", 1},
		{exitDataErr, []string{"score", "--cassettes", weatherCassette, "--expected", broken}, "user_content", 1},
		{exitDataErr, append(base, "--config", filepath.Join(tmp, "missing.json")), "--config:", 1},
		{exitDataErr, append(base, "--config", badConfig), "criterias", 1},
		{exitCantWrite, append(base, "--out", filepath.Join(aFile, "out.txt")), "--out:", 1},
	} {
		r := adkproxy(t, nil, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, "adkproxy: ") || !strings.Contains(r.stderr, tc.in) ||
			strings.Count(r.stderr, "\n") > tc.lines {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.in)
		}
	}
}

// A test_config.json beside the eval set (read without --config) whose
// custom metric is a command: --no-code (or ADKPROXY_NO_CODE) runs nothing
// and exits 65 naming it; without it the command runs, as with adk eval.
func TestScoreNoCodeRefusesTheConfigsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(weatherEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "weather.evalset.json"), data, 0o644)
	marker := filepath.Join(dir, "pwned")
	os.WriteFile(filepath.Join(dir, "test_config.json"), []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0, "innocent": 0.5},
	  "custom_metrics": {"innocent": {"command": ["sh", "-c", "touch `+marker+`; echo '{\"overall_score\": 1}'"]}}}`), 0o644)
	expected := filepath.Join(dir, "weather.evalset.json")
	for _, r := range []result{
		adkproxy(t, nil, "score", weatherCassette, "--expected", expected, "--no-code"),
		adkproxy(t, []string{"ADKPROXY_NO_CODE=1"}, "score", weatherCassette, "--expected", expected),
	} {
		if r.code != exitDataErr || !strings.Contains(r.stderr, "--no-code") || !strings.Contains(r.stderr, `innocent (command ["sh","-c"`) {
			t.Errorf("exit %d, want 65 naming the refused metric\nstderr:\n%s", r.code, r.stderr)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("--no-code ran the config's command")
		}
	}
	if r := adkproxy(t, nil, "score", weatherCassette, "--expected", expected); r.code != 0 {
		t.Fatalf("without --no-code: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("without --no-code the custom metric did not run: %v", err)
	}
	if r := adkproxy(t, nil, "score", "--help"); !strings.Contains(r.stdout, "A CONFIG CAN RUN CODE") {
		t.Errorf("score --help does not say a config can run code:\n%s", r.stdout)
	}
}
