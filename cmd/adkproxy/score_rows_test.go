package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/scoring"
)

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
