package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
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

const adkjsScenarios = `{"scenarios": [
 {"starting_prompt": "Is alice@example.com valid",
  "conversation_plan": "PLAN-A: check alice's email, then check bob@example.com, then end.",
  "user_persona": "NOVICE"},
 {"starting_prompt": "Check carol@example.com",
  "conversation_plan": "PLAN-B: keep asking to check dave@example.com.",
  "user_persona": {"id": "TERSE_TESTER", "description": "Types as little as possible.", "behaviors": [
    {"name": "Terse", "description": "One short line.", "behavior_instructions": ["Write one short line."],
     "violation_rubrics": ["More than one line."]}]}}
]}`

// bookingUser is the simulated user of the booking agent: A asks about
// bob once alice's check is in and stops after bob's; B keeps asking
// about dave until the turn limit.
func bookingUser(prompt string, _ int) fakejudge.Reply {
	history := prompt[strings.LastIndex(prompt, "# Conversation History"):]
	switch {
	case strings.Contains(prompt, "PLAN-A") && strings.Contains(history, "bob@example.com"):
		return fakejudge.Reply{Text: "thanks </Finished>"}
	case strings.Contains(prompt, "PLAN-A"):
		return fakejudge.Reply{Text: "Now check bob@example.com"}
	}
	return fakejudge.Reply{Text: "Check dave@example.com"}
}

// terseWhenTold is the scripted upstream of the booking agent: fakegemini,
// except that an agent whose instruction says "TERSE MODE" words its tool
// reports differently — a changed agent instruction that changes what
// the agent says.
type terseWhenTold struct{ fake fakegemini.Handler }

func (h *terseWhenTold) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	h.fake.ServeHTTP(rec, r)
	out := rec.Body.Bytes()
	if bytes.Contains(body, []byte("TERSE MODE")) {
		out = bytes.ReplaceAll(out, []byte(" returned "), []byte(" gave "))
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	w.Write(out)
}

// The "done when" for simulate: two scenarios — NOVICE and a
// custom persona — played two at a time against ADK-JS's API server
// serving a corpus agent with tools, the agent's traffic under adkproxy
// record and the simulated user recorded with a key; then both replayed
// with no key and the upstream down, to the same transcript, table and
// eval set; then the agent's instruction changed, and the replay names the
// scenario and the turn where the conversation diverged.
func TestSimulateADKJSRecordReplayDiverge(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	dir := testutil.OutDir(t)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	scen := write("scenarios.json", adkjsScenarios)
	cfg := write("test_config.json", `{"criteria": {}, "user_simulator_config": {"max_allowed_invocations": 3, "include_function_calls": true}}`)
	input := write("session_input.json", `{"app_name": "tools_agent_002", "user_id": "u1", "state": {}}`)
	agentDir, simDir := filepath.Join(dir, "agent"), filepath.Join(dir, "sim")
	simulateArgs := func(server, out string, extra ...string) []string {
		return append([]string{"simulate", "--server", server, "--app", "tools_agent_002", "--scenarios", scen,
			"--session-input", input, "--config", cfg, "--parallel", "2", "--out", filepath.Join(dir, out), "--sim-cassettes", simDir}, extra...)
	}
	agentUp := httptest.NewServer(&terseWhenTold{})
	userUp := httptest.NewServer(&fakejudge.Handler{Script: bookingUser})

	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", agentDir, "--upstream", agentUp.URL)
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, simulateArgs(srv.url, "recorded", "--sim-base-url", userUp.URL)...)
	srv.stop(t)
	userUp.Close()
	if rec.code != 0 {
		t.Fatalf("simulate under record: exit %d\n%s\nserver:\n%s", rec.code, rec.stderr, srv.stderr.String())
	}
	log := readFile(t, filepath.Join(dir, "recorded", simulate.QALogFile))
	for _, want := range []string{"- persona: NOVICE", "- persona: TERSE_TESTER", "- stopped: stop_signal_detected",
		"- stopped: turn_limit_reached", "called `validate_email`", "**User:** Now check bob@example.com"} {
		if !strings.Contains(log, want) {
			t.Errorf("the recorded transcript lacks %q:\n%s", want, log)
		}
	}

	// Replay: no key anywhere, both upstreams down.
	agentUp.Close()
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", agentDir)
	rep := adkproxy(t, nil, simulateArgs(srv.url, "replayed")...)
	if code := srv.stop(t); code == exitUnmatched {
		t.Errorf("the agent's replay reported unmatched requests:\n%s", srv.stderr.String())
	}
	if rep.code != 0 {
		t.Fatalf("simulate under replay: exit %d\n%s", rep.code, rep.stderr)
	}
	for _, f := range []string{simulate.QALogFile, simulate.EvalSetFile, simulate.SessionsCSV, simulate.SessionsJSON} {
		if got, want := readFile(t, filepath.Join(dir, "replayed", f)), readFile(t, filepath.Join(dir, "recorded", f)); got != want {
			t.Errorf("%s differs in replay:\n%s\nrecorded:\n%s", f, got, want)
		}
	}

	// The agent's instruction changed: re-recorded live, its tool reports
	// read differently, and the simulated user's replay says where.
	yaml := filepath.Join(agents, "tools_agent_002", "root_agent.yaml")
	orig := readFile(t, yaml)
	os.WriteFile(yaml, []byte(strings.Replace(orig, "You are a booking assistant.", "You are a booking assistant. TERSE MODE.", 1)), 0o644)
	changedUp := httptest.NewServer(&terseWhenTold{})
	defer changedUp.Close()
	srv = startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", filepath.Join(dir, "agent-changed"), "--upstream", changedUp.URL)
	div := adkproxy(t, nil, simulateArgs(srv.url, "changed")...)
	srv.stop(t)
	ids := scenarioIDs(t, filepath.Join(dir, "recorded", simulate.SessionsCSV))
	for _, id := range ids {
		if !strings.Contains(div.stderr, "scenario "+id+" diverged at turn 2:") {
			t.Errorf("no divergence of scenario %s at turn 2 reported:\n%s", id, div.stderr)
		}
	}
	if div.code != exitUnmatched || !strings.Contains(div.stderr, "{+gave+}") {
		t.Errorf("changed agent: exit %d, want %d with the difference\n%s", div.code, exitUnmatched, div.stderr)
	}
}

func scenarioIDs(t *testing.T, path string) []string {
	t.Helper()
	rows, _ := csv.NewReader(strings.NewReader(readFile(t, path))).ReadAll()
	col := slices.Index(rows[0], "eval_id")
	if col < 0 {
		t.Fatalf("%s has no eval_id column: %q", path, rows[0])
	}
	var ids []string
	for _, r := range rows[1:] {
		ids = append(ids, r[col])
	}
	return ids
}

// The simulated user's conversation history shows a tool call's args and
// the tool's response as ADK does — Python's repr of the dicts, keys in
// the order the agent's server sent them (nested ones too), numbers as
// Python reads them, strings quoted and escaped as Python's repr — so a
// prompt template copied from ADK gets the bytes adk eval gives it.
func TestSimulateHistoryToolValuesAsADK(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	write := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	scen := write("scenarios.json", `{"scenarios": [{"starting_prompt": "What is the weather in Paris?", "conversation_plan": "Ask for the weather in Paris, then end."}]}`)
	cfg := write("test_config.json", `{"criteria": {}, "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 3, "include_function_calls": true,
  "custom_instructions": "Plan: {{ conversation_plan }}\nEnd with {{ stop_signal }}.\nHISTORY<<{{ conversation_history }}>>"}}`)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny",
		ToolArgs:   []byte(`{"city": "Paris", "units": "metric", "days": 3, "at": {"lon": 2.35, "lat": 48.85}, "note": "it's \"big\"\u00a0caf\u00e9", "ratio": 1.50}`),
		ToolResult: []byte(`{"temp_c": 21.0, "sky": "sunny", "wind": {"speed_kmh": 12, "dir": "NW"}, "alerts": [], "ok": true, "extra": null}`)})
	defer agent.Close()
	res, prompts := simulateOnce(t, dir, agent.URL, scen, cfg)
	if res.code != 0 {
		t.Fatalf("simulate: exit %d\n%s", res.code, res.stderr)
	}
	if len(prompts) != 1 {
		t.Fatalf("the simulated user was asked %d times, want once:\n%q", len(prompts), prompts)
	}
	want := "Plan: Ask for the weather in Paris, then end.\nEnd with </finished>.\nHISTORY<<" +
		"user: What is the weather in Paris?\n\n" +
		`weather_agent called tool 'get_weather' with args: {'city': 'Paris', 'units': 'metric', 'days': 3, 'at': {'lon': 2.35, 'lat': 48.85}, 'note': 'it\'s "big"\xa0café', 'ratio': 1.5}` + "\n\n" +
		`Tool 'get_weather' returned: {'temp_c': 21.0, 'sky': 'sunny', 'wind': {'speed_kmh': 12, 'dir': 'NW'}, 'alerts': [], 'ok': True, 'extra': None}` + "\n\n" +
		"weather_agent: It is 21°C and sunny in Paris.>>"
	if prompts[0] != want {
		t.Errorf("the simulated user's prompt:\n%s\nwant\n%s", prompts[0], want)
	}
}

// Custom instructions see the persona as ADK's UserPersona: texts as
// written, the two bullet methods, and render_string_filter renders a
// behavior text in the prompt's variables (the persona and the history
// too); the description is never rendered.
func TestSimulatePersonaVariablesAsADK(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	write := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	scen := write("scenarios.json", `{"scenarios": [{"starting_prompt": "hi", "conversation_plan": "P",
  "user_persona": {"id": "TERSE", "description": "Says {{ stop_signal }} rarely.", "behaviors": [
    {"name": "Brief {{ persona.id }}", "description": "Plan is {{ conversation_plan }}; so far {{ conversation_history }}",
     "behavior_instructions": ["Write {{ stop_signal }} when done.", "Never repeat."], "violation_rubrics": ["Long.", "Repeats."]},
    {"name": "Quiet", "description": "", "behavior_instructions": [], "violation_rubrics": []}]}}]}`)
	cfg := write("test_config.json", `{"criteria": {}, "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 3,
  "custom_instructions": "{{ persona.description }}|{% for b in persona.behaviors %}{{ b.name }}={{ b.name | render_string_filter }}|{{ b.description | render_string_filter }}|{{ b.get_behavior_instructions_str() | render_string_filter }}|{{ b.get_violation_rubrics_str() }}|{% endfor %}{{ conversation_plan }}|{{ stop_signal }}|{{ conversation_history }}"}}`)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()
	res, prompts := simulateOnce(t, dir, agent.URL, scen, cfg)
	if res.code != 0 || len(prompts) != 1 {
		t.Fatalf("simulate: exit %d, %d prompt(s)\n%s", res.code, len(prompts), res.stderr)
	}
	want := "Says {{ stop_signal }} rarely.|" +
		"Brief {{ persona.id }}=Brief TERSE|Plan is P; so far user: hi\n\nweather_agent: Which city?|  * Write </finished> when done.\n  * Never repeat.|  * Long.\n  * Repeats.|" +
		"Quiet=Quiet||||" +
		"P|</finished>|user: hi\n\nweather_agent: Which city?"
	if prompts[0] != want {
		t.Errorf("the simulated user's prompt:\n%q\nwant\n%q", prompts[0], want)
	}
}

// simulateOnce runs adkproxy simulate against the agent server at agentURL
// with a simulated user that ends at once, and returns the prompts it was
// sent.
func simulateOnce(t *testing.T, dir, agentURL, scen, cfg string) (result, []string) {
	t.Helper()
	var mu sync.Mutex
	var prompts []string
	user := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		defer mu.Unlock()
		prompts = append(prompts, prompt)
		return fakejudge.Reply{Text: "</finished>"}
	}})
	defer user.Close()
	res := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, "simulate", "--server", agentURL, "--app", "weather",
		"--scenarios", scen, "--config", cfg, "--out", filepath.Join(dir, "out"), "--sim-cassettes", filepath.Join(dir, "sim"),
		"--sim-base-url", user.URL)
	mu.Lock()
	defer mu.Unlock()
	return res, prompts
}

// simulate --num-runs 2 plays each scenario twice, each run in a session,
// simulated-user cassette and session file of its own, against ADK-JS
// under adkproxy record; replayed with no key to the same transcript; and
// score --num-runs 2 pairs both recorded sessions of each scenario case
// with it.
func TestSimulateNumRunsThenScorePoolsThem(t *testing.T) {
	t.Parallel()
	agents, dir, scen, cfg := bookingSimulation(t)
	agentDir, simDir := filepath.Join(dir, "agent"), filepath.Join(dir, "sim")
	args := func(server, out string, extra ...string) []string {
		return append([]string{"simulate", "--server", server, "--app", "tools_agent_002", "--scenarios", scen, "--config", cfg,
			"--num-runs", "2", "--out", filepath.Join(dir, out), "--sim-cassettes", simDir}, extra...)
	}
	agentUp := httptest.NewServer(&terseWhenTold{})
	userUp := httptest.NewServer(&fakejudge.Handler{Script: bookingUser})
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", agentDir, "--upstream", agentUp.URL)
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(srv.url, "recorded", "--sim-base-url", userUp.URL)...)
	srv.stop(t)
	userUp.Close()
	if rec.code != 0 {
		t.Fatalf("simulate --num-runs 2: exit %d\n%s\nserver:\n%s", rec.code, rec.stderr, srv.stderr.String())
	}
	sessions, _ := filepath.Glob(filepath.Join(dir, "recorded", simulate.SessionsDir, "*.json"))
	simCassettes, _ := filepath.Glob(filepath.Join(simDir, "*.yaml"))
	if len(sessions) != 4 || len(simCassettes) != 4 {
		t.Errorf("%d session files %v, %d simulated-user cassettes %v; want 4 each", len(sessions), sessions, len(simCassettes), simCassettes)
	}
	if set := readFile(t, filepath.Join(dir, "recorded", simulate.EvalSetFile)); strings.Count(set, `"eval_id"`) != 2 {
		t.Errorf("the simulated eval set should hold each scenario once:\n%s", set)
	}

	agentUp.Close()
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", agentDir)
	rep := adkproxy(t, nil, args(srv.url, "replayed")...)
	srv.stop(t)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\n%s", rep.code, rep.stderr)
	}
	if got, want := readFile(t, filepath.Join(dir, "replayed", simulate.QALogFile)), readFile(t, filepath.Join(dir, "recorded", simulate.QALogFile)); got != want {
		t.Errorf("the replayed transcript differs:\n%s\n---\n%s", got, want)
	}

	evalset := filepath.Join(dir, "recorded", simulate.EvalSetFile)
	if _, err := os.Stat(evalset); err != nil {
		t.Fatal(err)
	}
	score := adkproxy(t, nil, "score", "--cassettes", agentDir, "--expected", evalset, "--num-runs", "2", "--config",
		writeTestFile(t, dir, "score.json", `{"criteria": {"tool_trajectory_avg_score": 1.0}}`))
	if score.code != 0 || strings.Count(score.stdout, "2 runs pooled") != 2 || strings.Contains(score.stderr, "not scored") {
		t.Errorf("score --num-runs 2: exit %d\n%s\n%s", score.code, score.stdout, score.stderr)
	}
}

// simulate --samples 2 under adkproxy record: sample N's agent traffic is
// cassette default@N of the recording proxy (switched through --proxy-url),
// its simulated user's turns the cassettes <scenario>@N, and --out holds
// both samples' sessions; score pools the samples. Replayed with no key,
// the simulated user gives each sample its recorded turns. Without
// --proxy-url, or out of range, --samples is a usage error.
func TestSimulateSamplesRecordPerSample(t *testing.T) {
	t.Parallel()
	agents, dir, scen, cfg := bookingSimulation(t)
	simDir := filepath.Join(dir, "sim")
	agentUp := httptest.NewServer(&terseWhenTold{})
	defer agentUp.Close()
	run := func(agentDir, out string, env []string, extra ...string) result {
		addrFile := filepath.Join(t.TempDir(), "addr")
		srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", agentDir, "--upstream", agentUp.URL, "--addr-file", addrFile)
		res := adkproxy(t, env, append([]string{"simulate", "--server", srv.url, "--app", "tools_agent_002", "--scenarios", scen, "--config", cfg,
			"--samples", "2", "--proxy-url", "http://" + strings.TrimSpace(readFile(t, addrFile)), "--out", filepath.Join(dir, out), "--sim-cassettes", simDir}, extra...)...)
		srv.stop(t)
		if res.code != 0 {
			t.Fatalf("simulate --samples 2: exit %d\n%s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
		}
		return res
	}
	userUp := httptest.NewServer(&fakejudge.Handler{Script: bookingUser})
	agentDir := filepath.Join(dir, "agent")
	run(agentDir, "recorded", []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "--sim-base-url", userUp.URL)
	userUp.Close()
	for n := 1; n <= 2; n++ {
		if _, err := os.Stat(filepath.Join(agentDir, "default@"+strconv.Itoa(n)+".yaml")); err != nil {
			t.Errorf("the agent's sample %d: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(agentDir, "default.yaml")); err == nil {
		t.Errorf("the unsampled agent cassette was written too")
	}
	ids := scenarioIDs(t, filepath.Join(dir, "recorded", simulate.SessionsCSV))
	if len(ids) != 4 {
		t.Fatalf("sessions.csv has %d sessions %q, want both scenarios in both samples", len(ids), ids)
	}
	for _, id := range ids[:2] {
		for n := 1; n <= 2; n++ {
			name := id + "@" + strconv.Itoa(n)
			if _, err := os.Stat(filepath.Join(simDir, name+".yaml")); err != nil {
				t.Errorf("simulated user's cassette of sample %d: %v", n, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "recorded", simulate.SessionsDir, name+".json")); err != nil {
				t.Errorf("session of sample %d: %v", n, err)
			}
		}
	}
	if set := readFile(t, filepath.Join(dir, "recorded", simulate.EvalSetFile)); strings.Count(set, `"eval_id"`) != 2 {
		t.Errorf("the simulated eval set should hold each scenario once:\n%s", set)
	}
	if sc := adkproxy(t, nil, "score", "--cassettes", agentDir); !strings.Contains(sc.stdout, "2 runs pooled") || !strings.Contains(sc.stdout, "samples: ") {
		t.Errorf("score of the samples: exit %d\n%s%s", sc.code, sc.stdout, sc.stderr)
	}

	// No key: the simulated user replays each sample's own turns.
	run(filepath.Join(dir, "agent-again"), "replayed", nil)
	if got, want := readFile(t, filepath.Join(dir, "replayed", simulate.QALogFile)), readFile(t, filepath.Join(dir, "recorded", simulate.QALogFile)); got != want {
		t.Errorf("the replayed transcript differs:\n%s\n---\n%s", got, want)
	}

	for _, bad := range [][]string{{"--samples", "2"}, {"--samples", "-1", "--proxy-url", "http://127.0.0.1:1"}} {
		r := adkproxy(t, nil, append([]string{"simulate", "--server", "http://127.0.0.1:1", "--app", "a", "--scenarios", scen,
			"--out", filepath.Join(dir, "bad"), "--sim-cassettes", simDir}, bad...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--samples") || !strings.Contains(r.stderr, "--proxy-url") {
			t.Errorf("simulate %q: exit %d, %s", bad, r.code, r.stderr)
		}
	}
}

// bookingSimulation writes ADK-JS's tools_agent_002 and the booking
// scenarios with a config of three invocations, for runs under record.
func bookingSimulation(t *testing.T) (agents, dir, scen, cfg string) {
	t.Helper()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents = filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	dir = testutil.OutDir(t)
	scen = writeTestFile(t, dir, "scenarios.json", adkjsScenarios)
	cfg = writeTestFile(t, dir, "test_config.json", `{"criteria": {}, "user_simulator_config": {"max_allowed_invocations": 3}}`)
	return agents, dir, scen, cfg
}

// simulate --adk-version goes through the one setting score's does: with
// 1.18 a rubric judge's prompt from ADK's template text (--judge-prompts)
// lists the rubrics as ADK 1.18 does (joined by "\n*  ", no ids), by
// default as newer ADK does (with ids); an unknown version is refused
// before any session is played.
func TestSimulateADKVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evalset := filepath.Join(dir, "set.evalset.json")
	os.WriteFile(evalset, []byte(`{"eval_set_id": "set", "eval_cases": [{"eval_id": "paris", "conversation": [
	 {"user_content": {"parts": [{"text": "Weather in Paris?"}]}}]}]}`), 0o644)
	cfg := filepath.Join(dir, "test_config.json")
	os.WriteFile(cfg, []byte(`{"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}, "rubrics": [
	  {"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}},
	  {"rubric_id": "polite", "rubric_content": {"text_property": "Is polite."}}]}}}`), 0o644)
	// A template in ADK's style, whose {rubrics} is where releases differ.
	prompts := filepath.Join(dir, "prompts")
	os.Mkdir(prompts, 0o755)
	os.WriteFile(filepath.Join(prompts, "rubric_based_final_response_quality_v1.txt"), []byte("{user_input}\n{final_response}\nRubrics:\n*  {rubrics}\n"), 0o644)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()
	var mu sync.Mutex
	var sent []string
	judge := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		sent = append(sent, prompt)
		mu.Unlock()
		return fakejudge.Reply{Text: "Property: Names the city.\nRationale: r\nVerdict: yes\n"}
	}})
	defer judge.Close()
	judged := func(version ...string) string {
		out := filepath.Join(dir, "out"+strings.Join(version, ""))
		args := append([]string{"simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--config", cfg, "--out", out,
			"--judge-cassettes", out + ".judge", "--judge-base-url", judge.URL, "--judge-prompts", prompts}, version...)
		mu.Lock()
		sent = nil
		mu.Unlock()
		res := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, args...)
		if res.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, res.code, res.stderr)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(sent) != 1 {
			t.Fatalf("%v: %d judge calls, want 1", args, len(sent))
		}
		return sent[0]
	}
	if p := judged("--adk-version", "1.18"); !strings.Contains(p, "Rubrics:\n*  Names the city.\n*  Is polite.\n") || strings.Contains(p, "[id: ") {
		t.Errorf("--adk-version 1.18: the judge's rubric list is not ADK 1.18's:\n%s", p)
	}
	if p := judged(); !strings.Contains(p, "*  [id: names_city] Names the city.\n*  [id: polite] Is polite.") {
		t.Errorf("default: the judge's rubric list is not newer ADK's, with ids:\n%s", p)
	}
	res := adkproxy(t, nil, "simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--config", cfg, "--out", dir, "--adk-version", "1.7")
	if res.code != exitUsage || !strings.Contains(res.stderr, "simulate: --adk-version:") {
		t.Errorf("--adk-version 1.7: exit %d, want %d naming the flag\n%s", res.code, exitUsage, res.stderr)
	}
}
