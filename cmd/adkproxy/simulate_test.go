package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

const simScenarios = `{"scenarios": [
 {"starting_prompt": "Hi, what's the weather like?",
  "conversation_plan": "PLAN-A: ask for the weather in Paris, then thank the agent and end.",
  "user_persona": "NOVICE"},
 {"starting_prompt": "Weather please",
  "conversation_plan": "PLAN-B: keep asking about the weather in Rome.",
  "user_persona": {"id": "GRUMPY", "description": "A grumpy traveller.", "behaviors": [
    {"name": "Be brief", "description": "Short replies.",
     "behavior_instructions": ["Answer in five words or fewer."], "violation_rubrics": ["Long replies."]}]}}
]}`

const simConfig = `{"criteria": {"per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}},
  "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 4, "include_function_calls": true},
  "adkproxy": {"criteria": {"tool_calls": {"max": 5}}}}`

// simUser: scenario A asks for Paris, thanks the agent and stops; B keeps
// asking about Rome until the turn limit.
func simUser(prompt string, _ int) fakejudge.Reply {
	history := prompt[strings.LastIndex(prompt, "# Conversation History"):]
	switch {
	case strings.Contains(prompt, "PLAN-A") && strings.Contains(history, "Anything else"):
		return fakejudge.Reply{Text: "</finished>"}
	case strings.Contains(prompt, "PLAN-A") && strings.Contains(history, "in Paris."):
		return fakejudge.Reply{Text: "Thanks, that is all."}
	case strings.Contains(prompt, "PLAN-A"):
		return fakejudge.Reply{Text: "The weather in Paris, please."}
	}
	return fakejudge.Reply{Text: "Rome again."}
}

// adkproxy simulate recorded with a key, replayed with none and the user
// model gone to the same transcript, table and eval set; a changed agent
// fails the replay (76) naming the scenario and turn, unless --lenient;
// the eval set it wrote plays back as static conversations.
func TestSimulateCommandRecordReplayDiverge(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	scen, cfg := write("scenarios.json", simScenarios), write("test_config.json", simConfig)
	input := write("session_input.json", `{"app_name": "weather", "user_id": "tester", "state": {"units": "metric"}}`)
	simDir := filepath.Join(dir, "sim")
	// The recording's agent is slower than the replay's: the replay must
	// still report the recorded turn times.
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny", Delay: 20 * time.Millisecond})
	defer agent.Close()
	judgeDir := filepath.Join(dir, "judge")
	args := func(server, out string, extra ...string) []string {
		return append([]string{"simulate", "--server", server, "--app", "weather", "--scenarios", scen, "--session-input", input,
			"--config", cfg, "--parallel", "2", "--out", filepath.Join(dir, out), "--sim-cassettes", simDir, "--judge-cassettes", judgeDir}, extra...)
	}
	user := httptest.NewServer(&fakejudge.Handler{Script: simUser})
	judge := httptest.NewServer(&fakejudge.Handler{Script: func(string, int) fakejudge.Reply {
		return fakejudge.Reply{Text: `{"criteria": [], "is_valid": true}`}
	}})
	rec := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, args(agent.URL, "recorded", "--sim-base-url", user.URL, "--judge-base-url", judge.URL)...)
	user.Close()
	judge.Close()
	if rec.code != 0 || !strings.Contains(rec.stderr, "simulate: 2 conversation(s), 0 failed, 0 diverged") {
		t.Fatalf("record: exit %d\n%s", rec.code, rec.stderr)
	}
	if log := readFile(t, filepath.Join(dir, "recorded", simulate.QALogFile)); !strings.Contains(log, "| per_turn_user_simulator_quality_v1 | 1 | PASSED |") {
		t.Errorf("the transcript lacks the judge's verdict:\n%s", log)
	}
	if n := testutil.CountInDir(t, simDir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the key appears %d times in the simulated user's cassettes", n)
	}

	// A fresh server, as a replay run starts one.
	again := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer again.Close()
	rep := adkproxy(t, nil, args(again.URL, "replayed")...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "calls replayed from "+judgeDir) {
		t.Fatalf("replay: exit %d\n%s", rep.code, rep.stderr)
	}
	for _, f := range []string{simulate.QALogFile, simulate.EvalSetFile, simulate.SessionsCSV, simulate.SessionsJSON} {
		got, _ := os.ReadFile(filepath.Join(dir, "replayed", f))
		want, _ := os.ReadFile(filepath.Join(dir, "recorded", f))
		if len(want) == 0 || string(got) != string(want) {
			t.Errorf("%s differs in replay:\n%s\nrecorded:\n%s", f, got, want)
		}
	}

	changed := httptest.NewServer(&fakeadk.Server{Weather: "rainy"})
	defer changed.Close()
	div := adkproxy(t, nil, args(changed.URL, "changed")...)
	if div.code != exitUnmatched || !strings.Contains(div.stderr, "diverged at turn 3:") ||
		!strings.Contains(div.stderr, "[-sunny-] {+rainy+}") || !strings.Contains(div.stderr, "--lenient") {
		t.Fatalf("changed agent: exit %d\n%s", div.code, div.stderr)
	}
	if lenient := adkproxy(t, nil, args(changed.URL, "lenient", "--lenient")...); lenient.code != 0 || !strings.Contains(lenient.stderr, "2 diverged") {
		t.Errorf("--lenient: exit %d\n%s", lenient.code, lenient.stderr)
	}

	// The simulated conversations frozen into an eval set play back turn
	// by turn with no simulated user at all.
	static := adkproxy(t, nil, "simulate", "--server", agent.URL, "--app", "weather", "--session-input", input,
		"--evalset", filepath.Join(dir, "recorded", simulate.EvalSetFile), "--out", filepath.Join(dir, "static"))
	got, _ := os.ReadFile(filepath.Join(dir, "static", simulate.EvalSetFile))
	want, _ := os.ReadFile(filepath.Join(dir, "recorded", simulate.EvalSetFile))
	if static.code != 0 || string(got) != string(want) {
		t.Errorf("static replay: exit %d\n%s\neval set:\n%s\nwant:\n%s", static.code, static.stderr, got, want)
	}
}

// An --evalset case's own session_input is the session it runs in (as in
// ADK); a case without one runs in --session-input's.
func TestSimulateEvalSetCaseSessionInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evalset := filepath.Join(dir, "set.evalset.json")
	os.WriteFile(evalset, []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "own", "session_input": {"app_name": "weather", "user_id": "alice", "state": {"units": "imperial"}},
	  "conversation": [{"user_content": {"parts": [{"text": "Weather in Paris?"}]}}]},
	 {"eval_id": "shared", "conversation": [{"user_content": {"parts": [{"text": "Weather in Rome?"}]}}]}]}`), 0o644)
	input := filepath.Join(dir, "session_input.json")
	os.WriteFile(input, []byte(`{"app_name": "weather", "user_id": "tester", "state": {"units": "metric"}}`), 0o644)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()
	out := filepath.Join(dir, "out")
	res := adkproxy(t, nil, "simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--session-input", input, "--out", out)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for id, want := range map[string]string{"own": `"userId": "alice"`, "shared": `"userId": "tester"`} {
		session := readFile(t, filepath.Join(out, simulate.SessionsDir, id+".json"))
		units := map[string]string{"own": `"units": "imperial"`, "shared": `"units": "metric"`}[id]
		if !strings.Contains(session, want) || !strings.Contains(session, units) {
			t.Errorf("case %s ran in the session %s, want %s and %s", id, session, want, units)
		}
	}
}

// Bad input is refused with the file and field named.
func TestSimulateCommandBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "scenarios.json")
	os.WriteFile(bad, []byte(`{"scenarios": [{"starting_prompt": "hi", "conversation_plan": "p", "user_persona": "NOVIC"}]}`), 0o644)
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"scenarios": [{"starting_prompt": "hi", "conversation_plan": "p"}]}`), 0o644)
	codeCfg := filepath.Join(dir, "test_config.json")
	os.WriteFile(codeCfg, []byte(`{"criteria": {"mine": 0.5}, "custom_metrics": {"mine": {"code_config": {"name": "evil.metric"}}}}`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", "--app", "a", "--scenarios", bad, "--out", dir}, exitUsage, "--server is required"},
		{[]string{"simulate", "--server", "http://127.0.0.1:1", "--app", "a", "--out", dir}, exitUsage, "--scenarios FILE or --evalset FILE"},
		{[]string{"simulate", "--server", "http://127.0.0.1:1", "--app", "a", "--scenarios", bad, "--out", dir}, exitDataErr, `unknown persona id "NOVIC"`},
		{[]string{"simulate", "--server", "http://127.0.0.1:1", "--app", "a", "--scenarios", filepath.Join(dir, "none.json"), "--out", dir}, exitDataErr, "none.json"},
		{[]string{"simulate", "--server", "http://127.0.0.1:1", "--app", "a", "--scenarios", good, "--config", codeCfg, "--no-code", "--out", dir, "--sim-cassettes", dir}, exitDataErr, "--no-code: refused 1 custom metric(s), which run code from the config: mine (code_config.name evil.metric"},
	} {
		r := adkproxy(t, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", tc.args, r.code, tc.code, tc.want, r.stderr)
		}
	}
}
