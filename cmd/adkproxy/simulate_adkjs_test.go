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
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

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
