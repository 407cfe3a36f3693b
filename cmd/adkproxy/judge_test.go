package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// approving is a judge that finds everything valid, every rubric met and
// every sentence supported, in the formats adkproxy's prompts ask for.
func approving(prompt string, seen int) fakejudge.Reply {
	switch {
	case strings.Contains(prompt, "is_the_agent_response_valid"):
		return fakejudge.Reply{Text: `{"reasoning": "Same facts as the reference.", "is_the_agent_response_valid": "valid"}`}
	case strings.Contains(prompt, "<property>"):
		var b strings.Builder
		for _, block := range strings.Split(prompt, "<property>")[1:] {
			id, _, _ := strings.Cut(strings.SplitN(block, "ID: ", 2)[1], "\n")
			b.WriteString("ID: " + id + "\nProperty: as given\nRationale: it holds\nVerdict: yes\n")
		}
		return fakejudge.Reply{Text: b.String()}
	case strings.Contains(prompt, "<sentence>first sentence"):
		return fakejudge.Reply{Text: "<sentence>The answer.</sentence>"}
	case strings.Contains(prompt, "supporting_excerpt:"):
		return fakejudge.Reply{Text: "sentence: The answer.\nlabel: supported\nrationale: the tool said so\nsupporting_excerpt: 18°C\ncontradicting_excerpt: none"}
	}
	return fakejudge.Reply{Status: 400}
}

const judgedConfig = `{"criteria": {
  "tool_trajectory_avg_score": 1.0,
  "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}},
  "rubric_based_tool_use_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1},
    "rubrics": [{"rubric_id": "one_call", "rubric_content": {"text_property": "The agent calls get_weather once per city."}}]},
  "hallucinations_v1": 1.0,
  "safety_v1": 1.0
}}`

// The Done-when of issue 17: record the judge's verdicts once with a key,
// then score with no key and no judge from the cassettes alone, and get
// the same numbers, byte for byte.
func TestScoreJudgedCriteriaReplayWithoutKeyOrNetwork(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	config := filepath.Join(dir, "test_config.json")
	if err := os.WriteFile(config, []byte(judgedConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	judgeDir := filepath.Join(dir, "judge")
	fake := &fakejudge.Handler{Script: approving}
	up := httptest.NewServer(fake)
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config,
			"--format", "json", "--out", out, "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey},
		args(filepath.Join(dir, "recorded.json"), "--judge-base-url", up.URL)...)
	up.Close()
	// safety_v1 stays NOT_EVALUATED (no Vertex AI): skipped as ADK skips it.
	if rec.code != 0 || !strings.Contains(rec.stderr, "judge: ") {
		t.Fatalf("record: exit %d\nstderr:\n%s", rec.code, rec.stderr)
	}
	// 2 invocations × (3 samples + 1 rubric call + segmenter + validator).
	wantCalls := 2 * (3 + 1 + 2)
	if fake.Calls() != wantCalls || !strings.Contains(rec.stderr, "judge: 12 calls made, recorded into "+judgeDir) {
		t.Errorf("the judge answered %d calls, want %d; stderr:\n%s", fake.Calls(), wantCalls, rec.stderr)
	}
	if n := testutil.CountInDir(t, judgeDir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the key appears %d times in the judge cassettes", n)
	}

	// No key, the judge gone: replay is the default.
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "judge: 12 calls replayed from "+judgeDir+"; ") ||
		!strings.Contains(rep.stderr, "by the price table (gemini-2.5-flash)") {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, _ := os.ReadFile(filepath.Join(dir, "recorded.json"))
	replayed, _ := os.ReadFile(filepath.Join(dir, "replayed.json"))
	if a, b := withoutRunID(recorded), withoutRunID(replayed); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("replayed JSON differs from the recorded one:\n%s\n---\n%s", a, b)
	}
	for _, want := range []string{`"metric_name": "final_response_match_v2"`, `"verdict": "valid"`, `"rationale": "Same facts as the reference."`,
		`"rubric_id": "one_call"`, `"label": "supported"`} {
		if !bytes.Contains(replayed, []byte(want)) {
			t.Errorf("the JSON lacks %s", want)
		}
	}

	// The table shows the majority and a rationale per invocation.
	table := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir)
	for _, want := range []string{"final_response_match_v2", "invocation 1: valid (3 of 3 samples): Same facts as the reference.",
		"invocation 2: 1 of 1 rubric met (majority of 1 sample): it holds", "invocation 1: 1 of 1 sentences supported"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, table.stdout)
		}
	}
	md := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir, "--format", "markdown")
	if !strings.Contains(md.stdout, "- `final_response_match_v2`: invocation 2: valid \\(3 of 3 samples\\): Same facts as the reference.") {
		t.Errorf("markdown lacks the verdict:\n%s", md.stdout)
	}
}

func withoutRunID(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"eval_set_result_id"`)) || bytes.Contains(l, []byte(`"eval_set_result_name"`)) || bytes.Contains(l, []byte(`"creation_timestamp"`)) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte("\n"))
}

func TestScoreJudgeUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-cassettes", dir, "--judge-mode", "record"); r.code != exitUsage ||
		!strings.Contains(r.stderr, "needs GOOGLE_API_KEY or GEMINI_API_KEY") {
		t.Errorf("record without a key: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-mode", "replay"); r.code != exitUsage {
		t.Errorf("--judge-mode without --judge-cassettes: exit %d, stderr %s", r.code, r.stderr)
	}
	// Another recorder holds the folder: exit 75, nothing written.
	l, _, err := reclock.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, "score", "--cassettes", weatherCassette, "--judge-cassettes", dir)
	l.Release()
	if r.code != exitTempFail {
		t.Errorf("recording into a locked folder: exit %d, stderr %s", r.code, r.stderr)
	}
	bad := filepath.Join(dir, "bad_config.json")
	os.WriteFile(bad, []byte(`{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {"num_samples": 2.5}}}}`), 0o644)
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--config", bad, "--judge-cassettes", dir); r.code != exitDataErr ||
		!strings.Contains(r.stderr, "bad_config.json: criteria.final_response_match_v2.judge_model_options.num_samples: want a whole number") {
		t.Errorf("bad judge options: exit %d, stderr %s", r.code, r.stderr)
	}
	// A missing folder is nothing recorded (TestScoreAnalysisReplayWithoutJudgeFolder); a file is an error.
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-cassettes", bad); r.code != exitDataErr ||
		!strings.Contains(r.stderr, "--judge-cassettes") {
		t.Errorf("replay from a file: exit %d, stderr %s", r.code, r.stderr)
	}
}

// Record had nothing to judge (every case passed, no LLM-judged criterion),
// so it never created the judge's folder: replaying the same run is
// "nothing to judge", not exit 65. When a call is needed after all, the
// hint is score's own record mode, not 'adkproxy record'.
func TestScoreAnalysisReplayWithoutJudgeFolder(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "judge")
	report := filepath.Join(t.TempDir(), "analysis.md")
	r := adkproxy(t, nil, "score", weatherCassette, "--expected", weatherEvalSet, "--config", weatherConfig,
		"--judge-cassettes", missing, "--judge-mode", "replay", "--analysis", report)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: nothing to judge\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("replay created the judge's folder")
	}
	data, err := os.ReadFile(weatherEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	london := filepath.Join(t.TempDir(), "london.evalset.json")
	os.WriteFile(london, []byte(strings.Replace(string(data), `"args": {"city": "Tokyo"}`, `"args": {"city": "London"}`, 1)), 0o644)
	r = adkproxy(t, nil, "score", weatherCassette, "--expected", london, "--config", weatherConfig,
		"--judge-cassettes", missing, "--judge-mode", "replay", "--analysis", report)
	if r.code != exitFailure || !strings.Contains(r.stderr, "adkproxy score --judge-mode record") || strings.Contains(r.stderr, "adkproxy record --cassettes") {
		t.Errorf("a failed case to analyse: exit %d, want 1 with the hint score --judge-mode record\nstderr:\n%s", r.code, r.stderr)
	}
	// The folder named is the one given: record never made it, and no stand-in for it exists after the run.
	if !strings.Contains(r.stderr, "no such cassette in "+missing+" ") || strings.Contains(r.stderr, "adkproxy-nothing-recorded") {
		t.Errorf("a failed case to analyse: the message does not name --judge-cassettes %s alone\nstderr:\n%s", missing, r.stderr)
	}
}

// --judge-prompts DIR swaps adkproxy's judge prompts for the user's: an
// ADK-style text with ADK's variable names, and a Go template over
// adkproxy's data; a placeholder the prompt does not fill, or a file of no
// known kind, is exit 65 naming the file.
func TestScoreJudgePromptsDir(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	prompts := filepath.Join(dir, "prompts")
	writeTestFile(t, prompts, "final_response_match_v2.txt", "MY V2 PROMPT\nUser: {prompt}\nAgent: {response}\nGolden: {golden_response}\nAnswer in JSON like {{\"is_the_agent_response_valid\": \"valid\"}}.")
	writeTestFile(t, prompts, "rubric_based_final_response_quality_v1.tmpl", `{{define "main"}}MY RUBRIC PROMPT for {{.UserPrompt}}{{end}}{{define "property"}}ID: {{.ID}}
Property: {{.Text}}{{end}}`)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {
	  "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}},
	  "rubric_based_final_response_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1},
	    "rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}}]}}}`)
	var mu sync.Mutex
	var asked []string
	fake := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		if strings.HasPrefix(prompt, "MY V2 PROMPT") {
			return fakejudge.Reply{Text: `{"reasoning": "ok", "is_the_agent_response_valid": "valid"}`}
		}
		return fakejudge.Reply{Text: "ID: names_city\nProperty: Names the city.\nRationale: it does\nVerdict: yes\n"}
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	judgeDir := filepath.Join(dir, "judge")
	args := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg,
		"--judge-cassettes", judgeDir, "--judge-prompts", prompts, "--judge-base-url", up.URL}
	r := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args...)
	if r.code != 0 || len(asked) != 4 {
		t.Fatalf("exit %d, %d judge calls\nstdout:\n%s\nstderr:\n%s", r.code, len(asked), r.stdout, r.stderr)
	}
	joined := strings.Join(asked, "\n---\n")
	for _, want := range []string{
		"MY V2 PROMPT\nUser: What is the weather in Paris?\nAgent: It is 18°C in Paris, clear.\nGolden: It is 18°C and clear in Paris.\nAnswer in JSON like {\"is_the_agent_response_valid\": \"valid\"}.",
		"MY RUBRIC PROMPT for And what about Tokyo?\nID: names_city\nProperty: Names the city.",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no judge call asked\n%s\ncalls:\n%s", want, joined)
		}
	}
	// Replay with the same prompts, no key: the same verdicts.
	if r := adkproxy(t, nil, args...); r.code != 0 {
		t.Errorf("replay: exit %d\n%s", r.code, r.stderr)
	}

	bad := filepath.Join(dir, "bad")
	writeTestFile(t, bad, "final_response_match_v2.txt", "Reference: {reference}")
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--judge-prompts", bad)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "final_response_match_v2.txt: {reference} at byte 11: not a variable of this prompt (it has prompt, response, golden_response") {
		t.Errorf("bad variable: exit %d\n%s", r.code, r.stderr)
	}
	odd := filepath.Join(dir, "odd")
	writeTestFile(t, odd, "judge.txt", "x")
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--judge-prompts", odd)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "judge.txt: not a judge prompt") {
		t.Errorf("unknown kind: exit %d\n%s", r.code, r.stderr)
	}
}

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

// simulatorApproving is approving, plus a valid verdict for every user
// turn the simulator judge grades.
func simulatorApproving(prompt string, seen int) fakejudge.Reply {
	if strings.Contains(prompt, `"is_valid"`) {
		return fakejudge.Reply{Text: `{"criteria": [{"name": "Answer all questions", "reasoning": "Stays on the plan.", "passes": true}], "is_valid": true}`}
	}
	return approving(prompt, seen)
}

// A conversation_scenario case scored against a recorded two-turn run
// (paired by its starting prompt): the simulator judge's verdicts recorded
// with a key, then replayed with no key and the judge gone, to the same
// numbers.
func TestScoreScenarioCaseRecordThenReplay(t *testing.T) {
	t.Parallel()
	golden := recordScenario(t, "golden", weatherScenario())
	dir := testutil.OutDir(t)
	evalset := filepath.Join(dir, "weather_sim.evalset.json")
	if err := os.WriteFile(evalset, []byte(`{"eval_set_id": "weather_sim", "eval_cases": [{
  "eval_id": "4f1c2b9a",
  "conversation_scenario": {"starting_prompt": "What is the weather in Paris?", "conversation_plan": "Ask for the weather in Paris, then in Tokyo.", "user_persona": "NOVICE"},
  "rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "The answer names the city."}}]
}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "test_config.json")
	if err := os.WriteFile(config, []byte(`{"criteria": {
  "per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}},
  "hallucinations_v1": 1.0,
  "rubric_based_final_response_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}},
  "tool_trajectory_avg_score": 1.0,
  "multi_turn_task_success_v1": 0.5
}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	judgeDir := filepath.Join(dir, "judge")
	fake := &fakejudge.Handler{Script: simulatorApproving}
	up := httptest.NewServer(fake)
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", golden, "--expected", evalset, "--config", config,
			"--format", "json", "--out", out, "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(filepath.Join(dir, "recorded.json"), "--judge-base-url", up.URL)...)
	up.Close()
	// tool_trajectory_avg_score and multi_turn_task_success_v1 stay
	// NOT_EVALUATED on a scenario case, skipped as ADK skips them.
	if rec.code != 0 || !strings.Contains(rec.stderr, "1 of 1 case passed; 3 of 5 criteria passed (2 NOT_EVALUATED)") {
		t.Fatalf("record: exit %d\nstderr:\n%s", rec.code, rec.stderr)
	}
	// per_turn: turn 2 (3 samples) + the stop check (3 samples); turn 1 is
	// an exact match. hallucinations: segmenter + validator per turn.
	// rubrics: one call per turn.
	if want := 3 + 3 + 2*2 + 2; fake.Calls() != want {
		t.Errorf("the judge answered %d calls, want %d; stderr:\n%s", fake.Calls(), want, rec.stderr)
	}
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "12 calls replayed from "+judgeDir) {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, _ := os.ReadFile(filepath.Join(dir, "recorded.json"))
	replayed, _ := os.ReadFile(filepath.Join(dir, "replayed.json"))
	if a, b := withoutRunID(recorded), withoutRunID(replayed); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("replayed JSON differs from the recorded one:\n%s\n---\n%s", a, b)
	}
	for _, want := range []string{`"eval_id": "4f1c2b9a"`, `"metric_name": "per_turn_user_simulator_quality_v1"`,
		`"stop_check"`, `"verdict": "true"`, `"label": "supported"`, `"rubric_id": "names_city"`,
		`the eval case has a conversation_scenario, no expected conversation to compare with`,
		`Vertex AI's evaluation service needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION`} {
		if !bytes.Contains(replayed, []byte(want)) {
			t.Errorf("the JSON lacks %s:\n%s", want, replayed)
		}
	}
	table := adkproxy(t, nil, "score", "--cassettes", golden, "--expected", evalset, "--config", config, "--judge-cassettes", judgeDir)
	for _, want := range []string{"per_turn_user_simulator_quality_v1", "turn 2: valid (3 of 3 samples)"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, table.stdout)
		}
	}
}
