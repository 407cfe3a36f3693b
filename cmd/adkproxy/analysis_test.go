package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// diagnosing is a judge that drafts a diagnosis citing the cases its
// prompt names, and keeps the prompts it saw.
type diagnosing struct {
	mu      sync.Mutex
	prompts []string
}

func (d *diagnosing) reply(prompt string, _ int) fakejudge.Reply {
	d.mu.Lock()
	d.prompts = append(d.prompts, prompt)
	d.mu.Unlock()
	if strings.Contains(prompt, "Criterion: state") {
		return fakejudge.Reply{Text: `{"score": 4, "rationale": "The units are kept."}`}
	}
	if !strings.Contains(prompt, "## Failure patterns") {
		return fakejudge.Reply{Status: 400}
	}
	var cited []string
	for _, block := range strings.Split(prompt, "=== Case `")[1:] {
		id, _, _ := strings.Cut(block, "`")
		cited = append(cited, "`"+id+"`")
	}
	return fakejudge.Reply{Text: "## Failure patterns\n\n1. **Wrong city**: the agent looks up the city of the previous turn (" + strings.Join(cited, ", ") +
		").\n\n## Likely causes\n\n- The instruction does not say to use the latest city.\n\n## What to change\n\n- Tell the agent to call get_weather with the city of the current question."}
}

// score --analysis: recorded once through a scripted judge, replayed with
// no key and no judge to the same file byte for byte; the judge was given
// the failed case's criteria, reasons and turns, expected and actual.
func TestScoreAnalysisRecordedOnceReplayedByteIdentical(t *testing.T) {
	t.Parallel()
	run, set, cfg := twoCaseRun(t)
	dir := testutil.OutDir(t)
	judgeDir := filepath.Join(dir, "judge")
	d := &diagnosing{}
	up := httptest.NewServer(&fakejudge.Handler{Script: d.reply})
	recorded, replayed := filepath.Join(dir, "recorded.md"), filepath.Join(dir, "replayed.md")
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--expected", set, "--config", cfg, "--label", "exp_v2", "--judge-cassettes", judgeDir,
			"--analysis", out}, append(extra, run)...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(recorded, "--judge-base-url", up.URL)...)
	up.Close()
	if rec.code != exitFailure || !strings.Contains(rec.stderr, "root-cause analysis of 1 failed case written to "+recorded) || len(d.prompts) != 1 {
		t.Fatalf("record: exit %d, %d judge calls\n%s", rec.code, len(d.prompts), rec.stderr)
	}
	prompt := d.prompts[0]
	for _, want := range []string{"=== Case `london` (session london/1): FAILED", "tool_trajectory_avg_score: score 0.5, threshold 1, FAILED",
		`expected get_weather(city="London"), got get_weather(city="Tokyo")`, "User: And what about Tokyo?",
		`Agent tool calls: get_weather(city="Tokyo")`, `Expected tool calls: get_weather(city="London")`, `run "exp_v2"`, "1 of 2 cases"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the judge's prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "paris_then_tokyo") {
		t.Errorf("a passing case went to the judge:\n%s", prompt)
	}
	report := readFile(t, recorded)
	if !strings.HasPrefix(report, "# Root-cause analysis: weather (exp_v2)\n") || !strings.Contains(report, "(`london`)") ||
		!strings.Contains(report, "## What to change") {
		t.Errorf("report:\n%s", report)
	}

	rep := adkproxy(t, nil, args(replayed)...)
	if rep.code != exitFailure || readFile(t, replayed) != report || !strings.Contains(rep.stderr, "1 calls replayed") {
		t.Errorf("replay: exit %d\n%s\nreport:\n%s", rep.code, rep.stderr, readFile(t, replayed))
	}

	// Nothing failed: a short report, no judge call.
	passed := filepath.Join(dir, "passed.md")
	r0 := adkproxy(t, nil, "score", "--expected", weatherEvalSet, "--judge-cassettes", judgeDir, "--analysis", passed, weatherCassette)
	if got := readFile(t, passed); r0.code != 0 || got != "# Root-cause analysis: weather\n\nNo case failed (1 case scored): nothing to diagnose.\n" {
		t.Errorf("all passed: exit %d\n%s\n%q", r0.code, r0.stderr, got)
	}

	// Without a judge: not written, and the run says why.
	none := filepath.Join(dir, "none.md")
	r := adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--analysis", none, run)
	if _, err := os.Stat(none); err == nil || !strings.Contains(r.stderr, "--analysis "+none+" not written: the report is drafted by the judge model, and no judge was given") {
		t.Errorf("without a judge: exit %d\n%s", r.code, r.stderr)
	}
	// A changed run asks the judge something it was not asked: replay
	// cannot answer, the file is not written, the run fails saying so.
	changed := filepath.Join(dir, "changed.md")
	r = adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--judge-cassettes", judgeDir, "--analysis", changed, run)
	if _, err := os.Stat(changed); err == nil || r.code != exitFailure || !strings.Contains(r.stderr, "--analysis "+changed+" not written") ||
		!strings.Contains(r.stderr, "judge call not recorded") {
		t.Errorf("unrecorded analysis: exit %d\n%s", r.code, r.stderr)
	}
}

// simulate --analysis, on an eval set played against an ADK server with a
// criterion that fails: the same report from the recording and the replay.
// A scale metric sees the session's state at the start and, as the server
// returned it, at the end.
func TestSimulateAnalysis(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	evalset := filepath.Join(dir, "set.evalset.json")
	os.WriteFile(evalset, []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "paris", "conversation": [{"user_content": {"parts": [{"text": "Weather in Paris?"}]}}]}]}`), 0o644)
	cfg := filepath.Join(dir, "test_config.json")
	os.WriteFile(cfg, []byte(`{"adkproxy": {"criteria": {"tool_calls": {"max": 0}},
	  "llm_metrics": {"state_fidelity": {"prompt": "Criterion: state.\nAt the start: {{.State}}\nAt the end: {{.FinalState}}", "threshold": 3}}}}`), 0o644)
	input := filepath.Join(dir, "session_input.json")
	os.WriteFile(input, []byte(`{"app_name": "weather", "user_id": "tester", "state": {"units": "metric"}}`), 0o644)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()
	d := &diagnosing{}
	up := httptest.NewServer(&fakejudge.Handler{Script: d.reply})
	judgeDir := filepath.Join(dir, "judge")
	args := func(name string, extra ...string) []string {
		return append([]string{"simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--config", cfg, "--session-input", input,
			"--out", filepath.Join(dir, name), "--judge-cassettes", judgeDir, "--analysis", filepath.Join(dir, name+".md")}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args("recorded", "--judge-base-url", up.URL)...)
	up.Close()
	report := readFile(t, filepath.Join(dir, "recorded.md"))
	var statePrompt string
	for _, p := range d.prompts {
		if strings.Contains(p, "Criterion: state") {
			statePrompt = p
		}
	}
	if !strings.Contains(statePrompt, "At the start: {\n  \"units\": \"metric\"\n}") || !strings.Contains(statePrompt, "At the end: {\n") ||
		!strings.Contains(statePrompt[strings.Index(statePrompt, "At the end"):], `"units": "metric"`) {
		t.Errorf("the scale metric's prompt:\n%s", statePrompt)
	}
	if len(d.prompts) != 2 || !strings.Contains(d.prompts[1], "tool_calls: score 1, maximum 0, FAILED") ||
		!strings.HasPrefix(report, "# Root-cause analysis: simulated\n") || !strings.Contains(report, "(`paris`)") {
		t.Fatalf("record: exit %d\n%s\nprompts %q\nreport:\n%s", rec.code, rec.stderr, d.prompts, report)
	}
	if log := readFile(t, filepath.Join(dir, "recorded", "sessions.csv")); !strings.Contains(log, ",4,PASSED,") {
		t.Errorf("sessions.csv lacks the scale metric:\n%s", log)
	}
	rep := adkproxy(t, nil, args("replayed")...)
	if got := readFile(t, filepath.Join(dir, "replayed.md")); got != report {
		t.Errorf("replay: exit %d\n%s\nreport:\n%s", rep.code, rep.stderr, got)
	}
	// No config, no judge: simulate says why there is no report.
	r := adkproxy(t, nil, "simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--session-input", input, "--out", filepath.Join(dir, "plain"),
		"--analysis", filepath.Join(dir, "plain.md"))
	if r.code != 0 || !strings.Contains(r.stderr, "not written: the report is drafted by the judge model") {
		t.Errorf("without a judge: exit %d\n%s", r.code, r.stderr)
	}
}
