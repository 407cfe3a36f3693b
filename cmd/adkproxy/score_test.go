package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/scoring"
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

// TestScoreDemoPasses: the table goes to stdout and ends with the verdict,
// so stderr stays quiet, and a passing run exits 0. What the table says is
// scoring's (scoring/weather_example_test.go).
func TestScoreDemoPasses(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", weatherConfig)
	if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "EVAL SET weather\n") ||
		!strings.HasSuffix(r.stdout, "\nPASSED: 1 of 1 case passed; 6 of 6 criteria passed\n") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// A changed expectation fails the run (exit 1); the table's own verdict
// ends stdout, so stderr stays quiet; in another format on stdout the
// verdict goes to stderr as well.
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
	if r.code != exitFailure || !strings.Contains(r.stdout, "\nFAILED: 0 of 1 case passed (1 FAILED)") || r.stderr != "" {
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
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
	var doc struct {
		EvalSetID string `json:"eval_set_id"`
	}
	if data, _ := os.ReadFile(out); len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &doc) != nil || doc.EvalSetID != "weather" {
		t.Fatalf("--out is not the EvalSetResult object:\n%s", data)
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
	if suites[0].Name != "weather" {
		t.Errorf("junit suite %+v", suites[0])
	}

	r = adkproxy(t, nil, append(args, "--format", "markdown")...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "## ✅ adkproxy score: weather\n") {
		t.Errorf("markdown: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	out = filepath.Join(dir, "score.html") // the page's content: internal/feature/report/htmlreport/pages_test.go
	r = adkproxy(t, nil, append(args, "--format", "html", "--out", out)...)
	if page, _ := os.ReadFile(out); r.code != 0 || r.stdout != "" || !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(r.stderr, "(html written to "+out+")") {
		t.Errorf("html: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
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
	if !strings.HasPrefix(r.stderr, `adkproxy: not scored: eval case "ghost"`) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// Without --expected ADK's default criteria cannot be judged: the run is
// NOT_EVALUATED, which fails it.
func TestScoreWithoutExpectations(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "score", "--cassettes", weatherCassette)
	if r.code != exitFailure || !strings.Contains(r.stdout, "\nNOT_EVALUATED: 0 of 1 case passed (1 NOT_EVALUATED)") {
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

// twoCaseRun is the demo's recorded run twice, as cassettes named after two
// eval cases: paris_then_tokyo as the demo expects it, and london, which
// expects London where the agent was asked about Tokyo (so it fails
// tool_trajectory_avg_score in invocation 2). It returns the cassette
// folder, the eval set and a config with an informational metric.
func twoCaseRun(t *testing.T) (cassettes, evalSet, config string) {
	t.Helper()
	dir := t.TempDir()
	cassettes = filepath.Join(dir, "run")
	os.MkdirAll(cassettes, 0o755)
	rec, err := os.ReadFile(filepath.Join(weatherCassette, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"paris_then_tokyo", "london"} {
		named := strings.Replace(string(rec), "\nname: default\n", "\nname: "+name+"\n", 1)
		os.WriteFile(filepath.Join(cassettes, name+".yaml"), []byte(named), 0o644)
	}
	var set map[string]any
	data, _ := os.ReadFile(weatherEvalSet)
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	cases := set["eval_cases"].([]any)
	london, _ := json.Marshal(cases[0])
	londonText := strings.Replace(strings.Replace(string(london), `"city":"Tokyo"`, `"city":"London"`, 1), `"paris_then_tokyo"`, `"london"`, 1)
	var lc any
	json.Unmarshal([]byte(londonText), &lc)
	set["eval_cases"] = append(cases, lc)
	out, _ := json.Marshal(set)
	evalSet = filepath.Join(dir, "two.evalset.json")
	os.WriteFile(evalSet, out, 0o644)
	config = filepath.Join(dir, "config.json")
	os.WriteFile(config, []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8},
	  "adkproxy": {"criteria": {"total_tokens": {}, "cost_usd": {"max": 0.01}}}}`), 0o644)
	return cassettes, evalSet, config
}

// The CSV's columns are the documented contract, in order; every value is
// the one the json result holds.
func TestScoreCSVColumnContract(t *testing.T) {
	t.Parallel()
	run, set, cfg := twoCaseRun(t)
	r := adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "csv", "--label", "exp_v2", run)
	if r.code != exitFailure {
		t.Fatalf("exit %d, want 1 (london fails)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	csvOut := r.stdout
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv: %v, %d rows:\n%s", err, len(rows), r.stdout)
	}
	want := []string{"label", "eval_set_id", "eval_id", "session_id", "status",
		"tool_trajectory_avg_score", "tool_trajectory_avg_score.status", "response_match_score", "response_match_score.status",
		"total_tokens", "total_tokens.status", "cost_usd", "cost_usd.status"}
	want = append(want, scoring.RunColumns()...)
	want = append(want, "final_response")
	if !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("header\n%q\nwant\n%q", rows[0], want)
	}
	cell := func(row int, col string) string {
		for i, c := range rows[0] {
			if c == col {
				return rows[row][i]
			}
		}
		t.Fatalf("no column %s", col)
		return ""
	}
	// Cases in eval set order.
	for _, c := range []struct {
		row                          int
		id, status, traj, trajStatus string
	}{
		{1, "paris_then_tokyo", "PASSED", "1", "PASSED"},
		{2, "london", "FAILED", "0.5", "FAILED"},
	} {
		row := c.row
		if cell(row, "label") != "exp_v2" || cell(row, "eval_set_id") != "weather" || cell(row, "eval_id") != c.id ||
			cell(row, "session_id") != c.id+"/1" || cell(row, "status") != c.status ||
			cell(row, "tool_trajectory_avg_score") != c.traj || cell(row, "tool_trajectory_avg_score.status") != c.trajStatus {
			t.Errorf("row %d: %q", row, rows[row])
		}
		if cell(row, "total_tokens") != "60" || cell(row, "total_tokens.status") != "INFORMATIONAL" ||
			cell(row, "metric.total_tokens") != "60" || cell(row, "metric.turn_count") != "2" || cell(row, "metric.tool_calls") != "2" ||
			cell(row, "final_response") != "It is 24°C in Tokyo, clear." {
			t.Errorf("row %d run metrics: %q", row, rows[row])
		}
	}

	// jsonl: the same columns as keys, in the same order, numbers as numbers.
	r = adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "jsonl", run)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("jsonl: %d lines:\n%s", len(lines), r.stdout)
	}
	dec := json.NewDecoder(strings.NewReader(lines[1]))
	dec.UseNumber()
	var keys []string
	values := map[string]any{}
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		var v any
		dec.Decode(&v)
		keys = append(keys, k.(string))
		values[k.(string)] = v
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("jsonl keys\n%q\nwant\n%q", keys, want)
	}
	if values["label"] != "" || values["tool_trajectory_avg_score"] != json.Number("0.5") ||
		values["metric.total_tokens"] != json.Number("60") || values["status"] != "FAILED" {
		t.Errorf("jsonl values: %v", values)
	}

	// --out writes the same bytes.
	out := filepath.Join(t.TempDir(), "r.csv")
	adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "csv", "--label", "exp_v2", "--out", out, run)
	if b, _ := os.ReadFile(out); string(b) != csvOut {
		t.Errorf("--out differs from stdout:\n%s", b)
	}
}

// Two score results compared by label: per criterion the change of the
// mean and of the pass rate; the label is in every format.
func TestDiffScoreResultsByLabel(t *testing.T) {
	t.Parallel()
	run, set, cfg := twoCaseRun(t)
	dir := t.TempDir()
	base, exp := filepath.Join(dir, "base.json"), filepath.Join(dir, "exp.json")
	// The baseline expects only what the demo did: both cases pass.
	paris := filepath.Join(dir, "paris.evalset.json")
	data, _ := os.ReadFile(set)
	os.WriteFile(paris, []byte(strings.Replace(string(data), `"city":"London"`, `"city":"Tokyo"`, 1)), 0o644)
	if r := adkproxy(t, nil, "score", "--expected", paris, "--config", cfg, "--format", "json", "--label", "baseline", "--out", base, run); r.code != 0 {
		t.Fatalf("baseline: exit %d\n%s", r.code, r.stderr)
	}
	adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "json", "--label", "exp_v2", "--out", exp, run)
	if b, _ := os.ReadFile(exp); !strings.Contains(string(b), `"label": "exp_v2"`) {
		t.Fatalf("the json result has no label:\n%s", b)
	}
	for format, want := range map[string]string{
		"table":    "LABEL exp_v2\n",
		"markdown": "## ❌ adkproxy score: weather (exp\\_v2)",
		"junit":    `<property name="label" value="exp_v2"></property>`,
		"html":     "adkproxy score: weather (exp_v2)",
	} {
		r := adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", format, "--label", "exp_v2", run)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--format %s lacks %q:\n%s", format, want, r.stdout)
		}
	}

	r := adkproxy(t, nil, "diff", base, exp)
	if r.code != 0 {
		t.Fatalf("diff: exit %d\n%s", r.code, r.stderr)
	}
	fields := map[string][]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			fields[f[0]] = f
		}
	}
	// tool_trajectory_avg_score: mean 1 → 0.75, pass rate 2/2 → 1/2.
	if got := strings.Join(fields["tool_trajectory_avg_score"], " "); got != "tool_trajectory_avg_score 1 0.75 -0.25 100% (2/2) 50% (1/2) -50 pp" {
		t.Errorf("tool_trajectory_avg_score: %q\n%s", got, r.stdout)
	}
	if got := strings.Join(fields["response_match_score"], " "); got != "response_match_score 0.9333 0.9333 0 100% (2/2) 100% (2/2) 0 pp" {
		t.Errorf("response_match_score: %q\n%s", got, r.stdout)
	}
	// Informational: a mean, no pass rate.
	if got := strings.Join(fields["total_tokens"], " "); got != "total_tokens 60 60 0 - - -" {
		t.Errorf("total_tokens: %q\n%s", got, r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "score results: baseline ("+base+") → exp_v2 ("+exp+")\n") ||
		!strings.Contains(r.stdout, "MEAN baseline") || !strings.Contains(r.stdout, "PASS exp_v2") ||
		strings.Join(fields["(cases)"], " ") != "(cases) 100% (2/2) 50% (1/2) -50 pp" {
		t.Errorf("diff:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "baseline → exp_v2: 4 criteria compared") {
		t.Errorf("stderr: %s", r.stderr)
	}

	r = adkproxy(t, nil, "diff", "--format", "json", base, exp)
	var doc struct {
		Old      struct{ Label string }
		Criteria []struct {
			Name   string
			Change struct {
				Mean     *float64 `json:"mean"`
				PassRate *float64 `json:"pass_rate"`
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Old.Label != "baseline" || len(doc.Criteria) != 4 ||
		doc.Criteria[0].Change.Mean == nil || *doc.Criteria[0].Change.Mean != -0.25 || *doc.Criteria[0].Change.PassRate != -0.5 {
		t.Errorf("json: %v\n%s", err, r.stdout)
	}

	// A result and a run, or a flag that only compares runs: usage errors.
	if r := adkproxy(t, nil, "diff", base, run); r.code != 64 || !strings.Contains(r.stderr, "is a score result and") {
		t.Errorf("result vs run: exit %d %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "diff", "--fail-on", "any", base, exp); r.code != 64 {
		t.Errorf("--fail-on on results: exit %d %s", r.code, r.stderr)
	}
}

// A score result with a bad value is reported as such, naming the file,
// not taken for a cassette.
func TestDiffBadScoreResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`"{\"evalCaseResults\": [{\"evalId\": \"x\", \"finalEvalStatus\": 1, \"overallEvalMetricResults\": [{\"metricName\": \"m\", \"score\": 0.5, \"evalStatus\": 1}]}]}"`), 0o644)
	os.WriteFile(bad, []byte(`{"eval_case_results": [{"overall_eval_metric_results": [{"metric_name": "m", "eval_status": 1.5}]}]}`), 0o644)
	r := adkproxy(t, nil, "diff", bad, good)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "OLD: "+bad+": reading the score result") || !strings.Contains(r.stderr, "status 1.5") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
	// ADK's double-encoded camelCase file reads; the label is the file name.
	r = adkproxy(t, nil, "diff", good, good)
	if r.code != 0 || !strings.Contains(r.stdout, "m          0.5        0.5        0       100% (1/1)  100% (1/1)  0 pp") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// --personas FILE: a persona id in a scenario names the registry's persona
// (here a NOVICE in the user's own words) ahead of the pre-built one; its
// texts reach the simulator judge. A duplicate id is exit 65.
func TestScorePersonaRegistry(t *testing.T) {
	t.Parallel()
	golden := recordScenario(t, "golden", weatherScenario())
	dir := testutil.OutDir(t)
	evalset := writeTestFile(t, dir, "weather_sim.evalset.json", `{"eval_set_id": "weather_sim", "eval_cases": [{
  "eval_id": "4f1c2b9a",
  "conversation_scenario": {"starting_prompt": "What is the weather in Paris?", "conversation_plan": "Ask for the weather in Paris, then in Tokyo.", "user_persona": "NOVICE"}}]}`)
	personas := writeTestFile(t, dir, "personas.json", `{"personas": [{"id": "NOVICE", "description": "MY NOVICE: new to weather apps.",
  "behaviors": [{"name": "Asks plainly", "description": "MY BEHAVIOR", "behavior_instructions": ["Ask one city at a time.", "Write {{ stop_signal }} when done."],
                 "violation_rubrics": ["MY RUBRIC: asks two cities at once."]}]}]}`)
	config := writeTestFile(t, dir, "test_config.json", `{"criteria": {"per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}}}`)
	var mu sync.Mutex
	var asked []string
	fake := &fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		return simulatorApproving(prompt, seen)
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	r := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "score", "--cassettes", golden, "--expected", evalset, "--config", config,
		"--judge-cassettes", filepath.Join(dir, "judge"), "--judge-base-url", up.URL, "--personas", personas)
	if r.code != 0 || len(asked) == 0 {
		t.Fatalf("exit %d, %d judge calls\nstdout:\n%s\nstderr:\n%s", r.code, len(asked), r.stdout, r.stderr)
	}
	joined := strings.Join(asked, "\n")
	for _, want := range []string{"MY NOVICE: new to weather apps.", "MY RUBRIC: asks two cities at once."} {
		if !strings.Contains(joined, want) {
			t.Errorf("the judge was not told %q:\n%s", want, asked[0])
		}
	}
	dup := writeTestFile(t, dir, "dup.json", `[{"id": "A", "description": "a", "behaviors": []}, {"id": "A", "description": "b", "behaviors": []}]`)
	r = adkproxy(t, nil, "score", "--cassettes", golden, "--expected", evalset, "--personas", dup)
	if r.code != exitDataErr || !strings.Contains(r.stderr, `persona id "A" is used twice`) {
		t.Errorf("duplicate: exit %d\n%s", r.code, r.stderr)
	}
}

// scaleDefinitions are three metrics on a 0–5 scale, one prompt in a file.
const scaleDefinitions = `{
  "trajectory_accuracy": {"prompt": "Criterion: trajectory accuracy. The user asked: {{.UserText}}\nThe agent called:\n{{.ToolCalls}}\nThe expected calls were:\n{{.ReferenceToolCalls}}",
    "min": 0, "max": 5, "threshold": 4, "num_samples": 2},
  "response_correctness": {"prompt_file": "correctness.tmpl", "max": 5, "threshold": 4, "judge_model_config": {"temperature": 0}},
  "state_management_fidelity": {"prompt": "Criterion: state fidelity. Session state: {{.State}}\nTool results: {{.ToolResults}}", "num_samples": 1}
}`

const correctnessPrompt = "Criterion: response correctness. Question: {{.UserText}}\nAnswer: {{.FinalResponse}}\nReference: {{.Reference}}"

// TestScaleMetricsRecordedOnceReplayedOffline: metrics defined in a file the
// eval config names, graded by a scripted judge on loopback: recorded once,
// then replayed with no key and no judge to the same CSV, byte for byte.
func TestScaleMetricsRecordedOnceReplayedOffline(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	os.WriteFile(filepath.Join(dir, "metrics.json"), []byte(scaleDefinitions), 0o644)
	os.WriteFile(filepath.Join(dir, "correctness.tmpl"), []byte(correctnessPrompt), 0o644)
	config := filepath.Join(dir, "test_config.json")
	os.WriteFile(config, []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0}, "adkproxy": {"llm_metrics": "metrics.json"}}`), 0o644)
	judgeDir := filepath.Join(dir, "judge")

	var mu sync.Mutex
	var prompts []string
	fake := &fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		prompts = append(prompts, prompt)
		mu.Unlock()
		switch {
		case strings.Contains(prompt, "trajectory accuracy"):
			// Two samples: 4 then 5, so each invocation's mean is 4.5.
			return fakejudge.Reply{Text: []string{`{"score": 4, "rationale": "The calls match, one argument spelt loosely."}`,
				`{"score": 5, "rationale": "The calls match."}`}[seen%2]}
		case strings.Contains(prompt, "response correctness"):
			return fakejudge.Reply{Text: "```json\n{\"score\": \"3\", \"rationale\": \"Right city, the temperature differs.\"}\n```"}
		case strings.Contains(prompt, "state fidelity"):
			return fakejudge.Reply{Text: "Score: 2\nRationale: no state is kept."}
		}
		return fakejudge.Reply{Status: 400}
	}}
	up := httptest.NewServer(fake)
	args := func(extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config,
			"--format", "csv", "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args("--judge-base-url", up.URL)...)
	up.Close()
	// 2 invocations × (2 + 1 + 1) samples.
	if fake.Calls() != 8 || !strings.Contains(rec.stderr, "judge: 8 calls made") {
		t.Fatalf("record: exit %d, %d judge calls\nstdout %s\nstderr %s", rec.code, fake.Calls(), rec.stdout, rec.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(rec.stdout)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv: %v\n%s", err, rec.stdout)
	}
	cell := map[string]string{}
	for i, c := range rows[0] {
		cell[c] = rows[1][i]
	}
	for col, want := range map[string]string{
		"trajectory_accuracy": "4.5", "trajectory_accuracy.status": "PASSED",
		"response_correctness": "3", "response_correctness.status": "FAILED",
		"state_management_fidelity": "2", "state_management_fidelity.status": "INFORMATIONAL",
		"status": "FAILED",
	} {
		if cell[col] != want {
			t.Errorf("%s = %q, want %q (row %v)", col, cell[col], want, cell)
		}
	}
	// The definitions' templates saw the invocation's fields.
	joined := strings.Join(prompts, "\n====\n")
	for _, want := range []string{"The user asked: What is the weather in Paris?", `"name": "get_weather"`, `"city": "Tokyo"`,
		"Reference: It is 24°C and clear in Tokyo.", "Answer: It is 24°C in Tokyo, clear.", "Session state: {}",
		`{"score": <a number from 0 to 5>, "rationale":`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no judge prompt holds %q:\n%s", want, joined)
		}
	}

	// No key, no judge: the same CSV from the cassettes.
	rep := adkproxy(t, nil, args()...)
	if rep.stdout != rec.stdout || !strings.Contains(rep.stderr, "judge: 8 calls replayed") {
		t.Errorf("replay differs:\n%s\nrecorded:\n%s\nstderr %s", rep.stdout, rec.stdout, rep.stderr)
	}
	// The table shows each invocation's mean and a rationale.
	table := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir)
	if !strings.Contains(table.stdout, "invocation 1: 4.5 of 5 (mean of 2 samples): The calls match, one argument spelt loosely.") ||
		!strings.Contains(table.stdout, "invocation 2: 3 of 5 (mean of 1 sample): Right city, the temperature differs.") {
		t.Errorf("table:\n%s", table.stdout)
	}
	// Without a judge the metrics say why they have no score.
	none := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config)
	if !strings.Contains(none.stdout, "it needs an LLM judge and none was given") {
		t.Errorf("without a judge:\n%s", none.stdout)
	}
}

// Bad definitions stop score before any judge call, naming the file and
// the field.
func TestScaleMetricDefinitionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ def, want string }{
		{`{"m": {"prompt": "{{.Nope}}", "threshold": 3}}`, `adkproxy.llm_metrics.m: the prompt does not render`},
		{`{"m": {"prompt": "x", "threshold": 7}}`, `adkproxy.llm_metrics.m.threshold: the threshold 7 is outside the scale 0 to 5`},
		{`{"m": {"threshold": 3}}`, `adkproxy.llm_metrics.m: give the judge's prompt as "prompt"`},
		{`{"m": {"prompt": "x", "num_samples": 0}}`, `adkproxy.llm_metrics.m.num_samples: want a whole number from 1 to 100`},
		{`{"m": {"prompt": "x", "min": 5, "max": 1}}`, `min 5 must be below max 1`},
		{`{"total_tokens": {"prompt": "x"}}`, `total_tokens is already a metric`},
		{`{"m": {"prompt_file": "missing.tmpl"}}`, `adkproxy.llm_metrics.m.prompt_file: open`},
		{`"missing.json"`, `adkproxy.llm_metrics: reading the metric definitions`},
	} {
		config := filepath.Join(dir, "c.json")
		os.WriteFile(config, []byte(`{"adkproxy": {"llm_metrics": `+tc.def+`}}`), 0o644)
		r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--config", config)
		if r.code != exitDataErr || !strings.Contains(r.stderr, "c.json") || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %s; want %q", tc.def, r.code, r.stderr, tc.want)
		}
	}
}

// fakeVertex is a scripted Vertex AI evaluation endpoint and OAuth token
// endpoint on loopback: it hands out one access token for a signed service
// account assertion, and answers evaluateInstances calls carrying it with
// a score per response text.
type fakeVertex struct {
	mu       sync.Mutex
	bodies   []map[string]any
	badAuths int
}

func (f *fakeVertex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/token" {
		r.ParseForm()
		if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || r.Form.Get("assertion") == "" {
			http.Error(w, `{"error": "invalid_grant"}`, http.StatusBadRequest)
			return
		}
		io.WriteString(w, `{"access_token": "vertex-test-token", "token_type": "Bearer", "expires_in": 3600}`)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer vertex-test-token" {
		f.badAuths++
		http.Error(w, `{"error": {"code": 401, "message": "no token"}}`, http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/v1/projects/proj-1/locations/us-central1:evaluateInstances" {
		http.Error(w, `{"error": {"code": 404, "message": "wrong path"}}`, http.StatusNotFound)
		return
	}
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	f.bodies = append(f.bodies, body)
	response := body["instance"].(map[string]any)["response"].(map[string]any)["text"].(string)
	score := "1.0"
	if strings.Contains(response, "Tokyo") {
		score = "0.5"
	}
	io.WriteString(w, `{"metricResults": [{"score": `+score+`, "explanation": "judged `+score+`"}]}`)
}

func serviceAccountFile(t *testing.T, dir, tokenURL string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "proj-1", "private_key_id": "k1",
		"private_key": pemKey, "client_email": "eval@proj-1.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokenURL})
	return writeTestFile(t, dir, "sa.json", string(sa))
}

// safety_v1 and multi_turn_* are computed by Vertex AI's evaluation
// service, one evaluateInstances call per invocation with
// application-default credentials, recorded once into the judge's folder
// and replayed with no credentials and no endpoint to the same numbers; a
// call that was not recorded names its case, invocation and criterion.
func TestScoreVertexMetricsRecordThenReplay(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	fake := &fakeVertex{}
	up := httptest.NewServer(fake)
	sa := serviceAccountFile(t, t.TempDir(), up.URL+"/token")
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {"tool_trajectory_avg_score": 1.0, "safety_v1": 0.7, "multi_turn_task_success_v1": 0.7}}`)
	judgeDir := filepath.Join(dir, "judge")
	project := []string{"GOOGLE_CLOUD_PROJECT=proj-1", "GOOGLE_CLOUD_LOCATION=us-central1"}
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg,
			"--judge-cassettes", judgeDir, "--format", "json", "--out", out}, extra...)
	}
	rec := adkproxy(t, append(project, "GOOGLE_APPLICATION_CREDENTIALS="+sa),
		args(filepath.Join(dir, "recorded.json"), "--judge-mode", "record", "--vertex-base-url", up.URL)...)
	up.Close()
	if rec.code != 0 || len(fake.bodies) != 4 || fake.badAuths != 0 {
		t.Fatalf("record: exit %d, %d calls, %d without the token\nstderr:\n%s", rec.code, len(fake.bodies), fake.badAuths, rec.stderr)
	}
	b := fake.bodies[0]
	if b["location"] != "projects/proj-1/locations/us-central1" || mustJSON(t, b["metrics"]) != `[{"predefinedMetricSpec":{"metricSpecName":"safety_v1"}}]` ||
		mustJSON(t, b["instance"]) != `{"prompt":{"text":"What is the weather in Paris?"},"reference":{"text":"It is 18°C and clear in Paris."},"response":{"text":"It is 18°C in Paris, clear."}}` {
		t.Errorf("request %s", mustJSON(t, b))
	}
	if n := testutil.CountInDir(t, judgeDir, "vertex-test-token"); n != 0 {
		t.Errorf("the access token appears %d times in the cassettes", n)
	}

	rep := adkproxy(t, project, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, replayed := readFile(t, filepath.Join(dir, "recorded.json")), readFile(t, filepath.Join(dir, "replayed.json"))
	for _, want := range []string{`"metric_name": "safety_v1",`, `"score": 0.75,`, `"explanation": "judged 0.5"`} {
		if !strings.Contains(replayed, want) {
			t.Errorf("replayed result lacks %s:\n%s", want, replayed)
		}
	}
	if strings.Count(recorded, `"score": 0.75,`) != strings.Count(replayed, `"score": 0.75,`) {
		t.Errorf("replay differs from the recording")
	}

	// Another answer in the run: not recorded, named.
	other := writeTestFile(t, t.TempDir(), "default.yaml", strings.ReplaceAll(readFile(t, filepath.Join(weatherCassette, "default.yaml")), "It is 18°C in Paris, clear.", "It is 18°C in Paris, and clear."))
	miss := adkproxy(t, project, "score", "--cassettes", other, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--require-all")
	if miss.code != exitFailure || !strings.Contains(miss.stdout, `case "paris_then_tokyo", invocation 1, safety_v1 (Vertex AI evaluation): judge call not recorded`) {
		t.Errorf("missing recording: exit %d\nstdout:\n%s\nstderr:\n%s", miss.code, miss.stdout, miss.stderr)
	}
	// Without the project, in replay too, the reason says what to set.
	none := adkproxy(t, nil, args(filepath.Join(dir, "none.json"))...)
	if !strings.Contains(readFile(t, filepath.Join(dir, "none.json")), "needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION") {
		t.Errorf("no project: exit %d\n%s", none.code, none.stderr)
	}
}

// llmMetric asks Gemini, through GOOGLE_GEMINI_BASE_URL as an SDK would,
// whether each final response answers its question; run both as a Python
// function (code_config.name) and as a command.
const llmMetric = `import json, os, sys, urllib.request


def ask(text):
    url = os.environ["GOOGLE_GEMINI_BASE_URL"] + "/v1beta/models/gemini-2.5-flash:generateContent"
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": text}]}]}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json", "x-goog-api-key": os.environ["GOOGLE_API_KEY"]})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["candidates"][0]["content"]["parts"][0]["text"]


def answered(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    scores = []
    for inv in actual_invocations:
        question = inv.user_content.parts[0].text
        answer = inv.final_response.parts[0].text
        scores.append(1.0 if ask("Does %r answer %r? yes or no" % (answer, question)).strip() == "yes" else 0.0)
    return {"overall_score": sum(scores) / len(scores), "overall_eval_status": None,
            "per_invocation_results": [{"score": s, "eval_status": None} for s in scores]}


if __name__ == "__main__":
    req = json.load(sys.stdin)
    scores = []
    for inv in req["actual_invocations"]:
        scores.append(1.0 if ask("Command: does %r answer?" % inv["final_response"]["parts"][0]["text"]).strip() == "yes" else 0.0)
    print(json.dumps({"overall_score": sum(scores) / len(scores)}))
`

// Custom metrics that call Gemini themselves get GOOGLE_GEMINI_BASE_URL
// pointing at the judge's recorder: recorded once with a key into the
// judge's cassettes, then replayed with no key and no judge, to the same
// result.
func TestScoreCustomMetricModelCallsRecordThenReplay(t *testing.T) {
	t.Parallel()
	python := debianPython(t)
	dir := testutil.OutDir(t)
	writeTestFile(t, dir, "llm_metric.py", llmMetric)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {"answered": 1.0, "answered_cmd": 0.5},
	  "custom_metrics": {"answered": {"code_config": {"name": "llm_metric.answered"}},
	                     "answered_cmd": {"command": ["`+python+`", "llm_metric.py"]}}}`)
	fake := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		if strings.Contains(prompt, "Tokyo") && strings.HasPrefix(prompt, "Command") {
			return fakejudge.Reply{Text: "no"}
		}
		return fakejudge.Reply{Text: "yes"}
	}}
	up := httptest.NewServer(fake)
	judgeDir := filepath.Join(dir, "judge")
	args := func(out string) []string {
		return []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--python", python,
			"--judge-cassettes", judgeDir, "--judge-base-url", up.URL, "--format", "json", "--out", out}
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(filepath.Join(dir, "recorded.json"))...)
	up.Close()
	if rec.code != 0 || fake.Calls() != 4 || !strings.Contains(rec.stderr, "judge: 4 calls made") {
		t.Fatalf("record: exit %d, %d calls\nstderr:\n%s", rec.code, fake.Calls(), rec.stderr)
	}
	if n := testutil.CountInDir(t, judgeDir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the key appears %d times in the judge cassettes", n)
	}
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "judge: 4 calls replayed") {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	strip := func(s string) string { // the result id and time differ
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "eval_set_result_") && !strings.Contains(l, "creation_timestamp\": 17") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	recorded, replayed := readFile(t, filepath.Join(dir, "recorded.json")), readFile(t, filepath.Join(dir, "replayed.json"))
	if strip(recorded) != strip(replayed) {
		t.Errorf("replay differs from the recording:\n%s\n---\n%s", recorded, replayed)
	}
	if !strings.Contains(replayed, `"metric_name": "answered_cmd",`) || !strings.Contains(replayed, `"score": 0.5,`) {
		t.Errorf("result:\n%s", replayed)
	}
}

// fork --config scores both sides as score does, so it runs a config's
// custom metrics too: --no-code (and ADKPROXY_NO_CODE) refuses them there,
// before the command runs.
func TestForkNoCodeRefusesTheConfigsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker, ran := filepath.Join(dir, "pwned"), filepath.Join(dir, "ran")
	config := writeTestFile(t, dir, "cfg.json", `{"criteria": {"innocent": 0.5},
	  "custom_metrics": {"innocent": {"command": ["sh", "-c", "touch `+marker+`; echo '{\"overall_score\": 1}'"]}}}`)
	args := []string{"fork", "--cassettes", weatherCassette, "--at", "1/1/0", "--model", "gemini-2.5-pro",
		"--upstream", "http://127.0.0.1:1", "--out", filepath.Join(dir, "out"), "--config", config}
	for _, r := range []result{
		adkproxy(t, nil, append(args, "--no-code", "--", "touch", ran)...),
		adkproxy(t, []string{"ADKPROXY_NO_CODE=1"}, append(args, "--", "touch", ran)...),
	} {
		if r.code != exitDataErr || !strings.Contains(r.stderr, "--no-code") || !strings.Contains(r.stderr, `innocent (command ["sh","-c"`) {
			t.Errorf("exit %d, want 65 naming the refused metric\nstderr:\n%s", r.code, r.stderr)
		}
	}
	for _, f := range []string{marker, ran} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("fork --no-code ran something: %s exists", f)
		}
	}
}
