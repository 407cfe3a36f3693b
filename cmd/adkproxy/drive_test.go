package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestDriveRecordsGoldenRunOfADKJSServer is the "done when" for
// drive: ADK-JS's API server, serving a corpus agent, runs under adkproxy
// record against the scripted upstream while drive plays the case's spec;
// under adkproxy replay, with the upstream gone, drive gets the same
// session (ids and timestamps aside); export turns the cassette into an
// eval set that score then scores the recording against, and drive
// --evalset plays that eval set against the replaying server.
func TestDriveRecordsGoldenRunOfADKJSServer(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(corpus, "tests", "tool", "function_001", "spec.yaml")
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	dir := testutil.OutDir(t)
	out := t.TempDir()

	// Record.
	recorded := filepath.Join(out, "recorded.json")
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL)
	res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec, "--user", "u1", "--out", recorded)
	if res.code != 0 {
		t.Fatalf("drive under record exited %d: %s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	srv.stop(t)
	if len(upstream.Requests()) < 2 {
		t.Fatalf("the upstream got %d requests, want a tool round trip", len(upstream.Requests()))
	}
	rec := readSession(t, recorded)
	if rec["appName"] != "tools_agent_002" || rec["userId"] != "u1" {
		t.Errorf("recorded session = %v", rec)
	}
	if !strings.Contains(mustJSON(t, rec), `"functionCall"`) || !strings.Contains(mustJSON(t, rec), `"functionResponse"`) {
		t.Fatalf("the recorded session has no tool call: %s", mustJSON(t, rec))
	}

	// Replay, upstream gone.
	up.Close()
	replayed := filepath.Join(out, "replayed.json")
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", dir)
	res = adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec, "--user", "u1", "--out", replayed)
	if res.code != 0 {
		t.Fatalf("drive under replay exited %d: %s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	if got, want := stripRunIDs(readSession(t, replayed)), stripRunIDs(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("replayed session differs from the recorded one:\n got %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}

	if code := srv.stop(t); code == exitUnmatched {
		t.Fatalf("replay reported an unmatched request:\n%s", srv.stderr.String())
	}

	// The golden run as an eval set, played again by drive --evalset under
	// a fresh replay.
	evalset := filepath.Join(out, "golden.evalset.json")
	if res := adkproxy(t, nil, "export", "--cassettes", dir, "--out", evalset); res.code != 0 {
		t.Fatalf("export exited %d: %s", res.code, res.stderr)
	}
	fromEvalset := filepath.Join(out, "evalset-sessions.json")
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", dir)
	res = adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--evalset", evalset, "--user", "u1", "--out", fromEvalset)
	if res.code != 0 {
		t.Fatalf("drive --evalset under replay exited %d: %s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	if code := srv.stop(t); code == exitUnmatched {
		t.Fatalf("replay reported an unmatched request:\n%s", srv.stderr.String())
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(readFile(t, fromEvalset)), &list); err != nil || len(list) != 1 {
		t.Fatalf("drive --evalset wrote %d sessions (%v), want 1", len(list), err)
	}
	if got, want := stripRunIDs(list[0]), stripRunIDs(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("the eval set's session differs from the recorded one:\n got %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}

	// Score the recorded run against its own eval set: every criterion passes.
	res = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--format", "json")
	if res.code != 0 {
		t.Fatalf("score exited %d:\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, `"tool_trajectory_avg_score"`) || !strings.Contains(res.stdout, "validate_email") {
		t.Errorf("score's result does not show the tool trajectory:\n%s", res.stdout)
	}
}

func TestDriveUsageAndDataErrors(t *testing.T) {
	t.Parallel()
	diceEvalSet := filepath.Join(testutil.RepoRoot(), "scoring", "testdata", "evalsets", "dice_roller.evalset.json")
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"drive", "--app", "a", "--spec", "x"}, exitUsage, "--server and --app are required"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a"}, exitUsage, "exactly one of --spec and --evalset"},
		{[]string{"drive", "--server", "localhost:1", "--app", "a", "--spec", "x"}, exitUsage, "not an absolute http"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--spec", "/nonexistent/spec.yaml"}, exitDataErr, "/nonexistent/spec.yaml"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--evalset", diceEvalSet + ":nope"}, exitDataErr,
			`--evalset: ` + diceEvalSet + `: no eval case "nope" (its eval_ids: roll_and_check, scenario_case)`},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--evalset", diceEvalSet + ":scenario_case"}, exitDataErr,
			"has no eval case with a fixed conversation to play"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--evalset", filepath.Dir(spec)}, exitDataErr, "holds no eval set files"},
	} {
		res := adkproxy(t, nil, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tc.args, res.code, res.stderr, tc.code, tc.want)
		}
	}
	// A server that is not there: the URL is named.
	os.WriteFile(spec, []byte("agent: a\nuser_messages:\n  - text: hi\n"), 0o644)
	res := adkproxy(t, nil, "drive", "--server", "http://127.0.0.1:1", "--app", "a", "--spec", spec)
	if res.code != exitFailure || !strings.Contains(res.stderr, "http://127.0.0.1:1/apps/a/users/user/sessions") {
		t.Errorf("unreachable server: exit %d, stderr %q", res.code, res.stderr)
	}
}

// wrappedServer is adkproxy running ADK-JS's api_server as its command.
type wrappedServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	exited chan error
}

// startWrappedServer runs `adkproxy ARGS -- <ADK-JS api_server on agents>`
// and waits until the server answers.
func startWrappedServer(t *testing.T, agents string, env []string, args ...string) *wrappedServer {
	t.Helper()
	port := adkjstest.FreePort(t)
	server := adkjstest.ServerCommand(t, agents, port)
	cmd := adkproxyCmd(t, env, append(append(args, "--"), server...)...)
	s := &wrappedServer{cmd: cmd, url: "http://127.0.0.1:" + strconv.Itoa(port), stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	if err := adkjstest.WaitHealthy(t.Context(), s.url, s.exited); err != nil {
		t.Fatalf("%v\n%s", err, s.stderr.String())
	}
	return s
}

// stop sends SIGTERM to adkproxy (which passes it on to the server and
// writes its cassettes) and returns adkproxy's exit status.
func (s *wrappedServer) stop(t *testing.T) int {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute): // hang guard only
		t.Fatalf("adkproxy did not stop on SIGTERM:\n%s", s.stderr.String())
		return -1
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readSession(t *testing.T, path string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stripRunIDs drops what a server makes up per run: ids, invocation ids
// and timestamps, at any depth.
func stripRunIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "id", "invocationId", "timestamp", "lastUpdateTime":
				continue
			}
			out[k] = stripRunIDs(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripRunIDs(x)
		}
		return out
	}
	return v
}

// TestDriveWritesTheSessionOfAFailedTurn: a turn the server fails exits 1
// naming the URL, the turn and the server's words, and the session the
// server kept is still written.
func TestDriveWritesTheSessionOfAFailedTurn(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/apps/a/users/user/sessions":
			io.WriteString(w, `{"id":"s1","appName":"a","userId":"user","state":{},"events":[]}`)
		case r.URL.Path == "/run_sse":
			io.WriteString(w, "data: {\"error\": \"tool exploded\"}\n\n")
		case r.URL.Path == "/apps/a/users/user/sessions/s1":
			io.WriteString(w, `{"id":"s1","appName":"a","userId":"user","state":{},"events":[{"author":"user","kept":true}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("agent: a\nuser_messages:\n  - text: hi\n"), 0o644)
	out := filepath.Join(t.TempDir(), "session.json")
	res := adkproxy(t, nil, "drive", "--server", srv.URL, "--app", "a", "--spec", spec, "--out", out)
	if res.code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr %s", res.code, res.stderr)
	}
	for _, want := range []string{srv.URL + "/run_sse", "turn 1", "spec.yaml:3", "tool exploded"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not mention %q: %s", want, res.stderr)
		}
	}
	if s := readSession(t, out); !strings.Contains(mustJSON(t, s), `"kept":true`) {
		t.Errorf("the session the server kept was not written: %v", s)
	}
}

// drive --num-runs 3 plays an eval set's case three times against ADK-JS's
// API server under adkproxy record; score --num-runs 3 pairs the three
// recorded sessions with the case and pools them.
func TestDriveNumRunsThenScorePoolsThem(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(corpus, "tests", "tool", "function_001", "spec.yaml")
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	golden, runs, out := t.TempDir(), testutil.OutDir(t), t.TempDir()
	key := []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}

	srv := startWrappedServer(t, agents, key, "record", "--cassettes", golden, "--upstream", up.URL)
	if res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec); res.code != 0 {
		t.Fatalf("drive exited %d: %s", res.code, res.stderr)
	}
	srv.stop(t)
	evalset := filepath.Join(out, "golden.evalset.json")
	if res := adkproxy(t, nil, "export", "--cassettes", golden, "--out", evalset); res.code != 0 {
		t.Fatalf("export exited %d: %s", res.code, res.stderr)
	}

	srv = startWrappedServer(t, agents, key, "record", "--cassettes", runs, "--upstream", up.URL)
	sessions := filepath.Join(out, "sessions.json")
	res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--evalset", evalset, "--num-runs", "3", "--out", sessions)
	srv.stop(t)
	if res.code != 0 {
		t.Fatalf("drive --num-runs 3 exited %d: %s", res.code, res.stderr)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(readFile(t, sessions)), &list); err != nil || len(list) != 3 || list[0]["id"] == list[1]["id"] {
		t.Fatalf("drive --num-runs 3 wrote %d sessions (%v), want 3 distinct", len(list), err)
	}

	res = adkproxy(t, nil, "score", "--cassettes", runs, "--expected", evalset, "--num-runs", "3")
	if res.code != 0 || !strings.Contains(res.stdout, "3 runs pooled") || strings.Contains(res.stderr, "not scored") {
		t.Fatalf("score --num-runs 3: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
}

// bookerAgent is an ADK-JS agent whose one tool requires confirmation
// (requireConfirmation, ADK's require_confirmation), loaded from the
// server's own copy of @google/adk.
const bookerAgent = `import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
const entry = fs.realpathSync(process.argv[1]);
const adk = await import(pathToFileURL(path.join(path.dirname(entry), '..', '..', '..', 'adk', 'dist', 'esm', 'index.js')).href);
const book = new adk.FunctionTool({
  name: 'book_room',
  description: 'Books a hotel room in a city.',
  parameters: {type: 'object', properties: {city: {type: 'string', description: 'City name'}}, required: ['city']},
  requireConfirmation: true,
  execute: async ({city}) => ({status: 'booked', city}),
});
export const rootAgent = new adk.LlmAgent({name: 'booker', model: 'gemini-2.5-flash', instruction: 'Book rooms with book_room.', tools: [book]});
`

// ADK's tool confirmation flow against ADK-JS: drive --confirm answers the
// agent's adk_request_confirmation with a scripted decision, in both shapes
// ADK accepts; the request, the answer and the re-executed tool (or its
// refusal) are one invocation in ls and score.
func TestDriveAnswersToolConfirmation(t *testing.T) {
	t.Parallel()
	agents := filepath.Join(t.TempDir(), "agents")
	writeTestFile(t, agents, "booker/agent.mjs", bookerAgent)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	out := testutil.OutDir(t)
	evalset := writeTestFile(t, out, "booking.evalset.json", `{"eval_set_id": "booking", "eval_cases": [{"eval_id": "paris",
	  "conversation": [{"user_content": {"parts": [{"text": "Book a room in Paris"}]},
	    "intermediate_data": {"tool_uses": [{"name": "book_room", "args": {"city": "Paris"}}], "tool_responses": [], "intermediate_responses": []}}]}]}`)
	for _, tc := range []struct{ decision, shape, want string }{
		{"approve", "object", `"status": "booked"`},
		{"approve", "json-string", `"status": "booked"`},
		{"refuse", "object", `rejected`},
	} {
		name := tc.decision + "-" + tc.shape
		dir := filepath.Join(out, name)
		srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL)
		sessions := filepath.Join(out, name+".json")
		res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "booker", "--evalset", evalset, "--confirm", tc.decision, "--confirm-shape", tc.shape, "--out", sessions)
		srv.stop(t)
		if res.code != 0 {
			t.Fatalf("%s: drive exited %d: %s\nserver:\n%s", name, res.code, res.stderr, srv.stderr.String())
		}
		session := readFile(t, sessions)
		if !strings.Contains(session, `"name": "adk_request_confirmation"`) || !strings.Contains(session, tc.want) {
			t.Errorf("%s: the session lacks the confirmation or %s:\n%s", name, tc.want, session)
		}
		ls := adkproxy(t, nil, "ls", dir)
		if ls.code != 0 || !strings.Contains(ls.stdout, "1 session, 1 invocation") || !strings.Contains(ls.stdout, `book_room(city="Paris")`) {
			t.Errorf("%s: ls:\n%s%s", name, ls.stdout, ls.stderr)
		}
		score := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--config", writeTestFile(t, out, "tc.json", `{"criteria": {"tool_trajectory_avg_score": 1.0}}`))
		if score.code != 0 || !strings.Contains(score.stdout, "CASE paris  PASSED  (session default/1, 1 invocation)") {
			t.Errorf("%s: score: exit %d\n%s%s", name, score.code, score.stdout, score.stderr)
		}
	}
	// diff: the two approval shapes make the same model traffic; the OTLP
	// export has one invocation span holding the approved tool's span.
	a, b := filepath.Join(out, "approve-object"), filepath.Join(out, "approve-json-string")
	if d := adkproxy(t, nil, "diff", a, b); d.code != 0 {
		t.Errorf("diff of the two approval shapes: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
	otlp := adkproxy(t, nil, "export", a, "--format", "otlp-json")
	if otlp.code != 0 || strings.Count(otlp.stdout, `"name": "invocation"`) != 1 || !strings.Contains(otlp.stdout, `"name": "execute_tool book_room"`) {
		t.Errorf("otlp: exit %d, %d invocation spans\n%s", otlp.code, strings.Count(otlp.stdout, `"name": "invocation"`), otlp.stderr)
	}

	// Without --confirm the request stays unanswered: the tool never runs.
	dir := filepath.Join(out, "unanswered")
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL)
	sessions := filepath.Join(out, "unanswered.json")
	res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "booker", "--evalset", evalset, "--out", sessions)
	srv.stop(t)
	if data, _ := os.ReadFile(sessions); res.code != 0 || strings.Contains(string(data), `"status": "booked"`) {
		t.Errorf("unanswered: exit %d, session:\n%s", res.code, data)
	}
	if r := adkproxy(t, nil, "drive", "--server", "http://127.0.0.1:1", "--app", "booker", "--evalset", evalset, "--confirm", "maybe"); r.code != exitUsage {
		t.Errorf("--confirm maybe: exit %d, want 64", r.code)
	}
	for _, bad := range []string{"{", "1 2", "rooms"} {
		if r := adkproxy(t, nil, "drive", "--server", "http://127.0.0.1:1", "--app", "booker", "--evalset", evalset, "--confirm", "approve", "--confirm-payload", bad); r.code != exitUsage || !strings.Contains(r.stderr, "--confirm-payload") {
			t.Errorf("--confirm-payload %q: exit %d, want 64 naming the flag: %s", bad, r.code, r.stderr)
		}
	}
}

// The simulated user answers the agent's tool confirmation requests as its
// plan says (its model decides, one recorded call per request), in the
// same turn, and reports each answer to the recording proxy, so ls shows
// the approval too; replayed with no key, the same conversation.
func TestSimulatedUserAnswersToolConfirmation(t *testing.T) {
	t.Parallel()
	agents := filepath.Join(t.TempDir(), "agents")
	writeTestFile(t, agents, "booker/agent.mjs", bookerAgent)
	dir := testutil.OutDir(t)
	scen := writeTestFile(t, dir, "scenarios.json", `{"scenarios": [
	  {"starting_prompt": "Book a room in Paris", "conversation_plan": "Book a room in Paris and approve the booking when asked."},
	  {"starting_prompt": "Book a room in Oslo", "conversation_plan": "Ask for a room in Oslo but refuse the booking when asked."}]}`)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {}, "user_simulator_config": {"max_allowed_invocations": 2}}`)
	user := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		switch {
		case strings.Contains(prompt, "APPROVE or REFUSE") && strings.Contains(prompt, "approve the booking"):
			return fakejudge.Reply{Text: "APPROVE"}
		case strings.Contains(prompt, "APPROVE or REFUSE"):
			return fakejudge.Reply{Text: "REFUSE"}
		}
		return fakejudge.Reply{Text: "</finished>"}
	}}
	userUp := httptest.NewServer(user)
	agentUp := httptest.NewServer(&fakegemini.Handler{})
	args := func(server, out string, extra ...string) []string {
		return append([]string{"simulate", "--server", server, "--app", "booker", "--scenarios", scen, "--config", cfg,
			"--out", filepath.Join(dir, out), "--sim-cassettes", filepath.Join(dir, "sim")}, extra...)
	}
	agentDir := filepath.Join(dir, "agent")
	addrFile := filepath.Join(t.TempDir(), "addr")
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", agentDir, "--upstream", agentUp.URL, "--addr-file", addrFile)
	// The simulated user reports its answers to the recording proxy
	// (ADKPROXY_URL, as adkproxy record sets it for its command).
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey, "ADKPROXY_URL=http://" + strings.TrimSpace(readFile(t, addrFile))},
		args(srv.url, "recorded", "--sim-base-url", userUp.URL)...)
	srv.stop(t)
	userUp.Close()
	if rec.code != 0 {
		t.Fatalf("simulate: exit %d\n%s\nserver:\n%s", rec.code, rec.stderr, srv.stderr.String())
	}
	sessions, _ := filepath.Glob(filepath.Join(dir, "recorded", "sessions", "*.json"))
	var all string
	for _, s := range sessions {
		all += readFile(t, s)
	}
	log := readFile(t, filepath.Join(dir, "recorded", "question_answer_log.md"))
	if !strings.Contains(log, "- booker asks to confirm `book_room` with `{\"city\":\"Paris\"}`") {
		t.Errorf("the transcript does not show the confirmation request:\n%s", log)
	}
	if len(sessions) != 2 || strings.Count(all, `"name": "adk_request_confirmation"`) < 4 || !strings.Contains(all, `"status": "booked"`) ||
		!strings.Contains(all, `"city": "Paris"`) || !strings.Contains(all, "rejected") {
		t.Errorf("sessions:\n%s", all)
	}
	ls := adkproxy(t, nil, "ls", agentDir)
	if !strings.Contains(ls.stdout, "2 sessions, 2 invocations") || !strings.Contains(ls.stdout, `confirm book_room(city="Oslo")? → refused`) ||
		!strings.Contains(ls.stdout, `confirm book_room(city="Paris")? → approved`) {
		t.Errorf("ls:\n%s", ls.stdout)
	}

	agentUp.Close()
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", agentDir)
	rep := adkproxy(t, nil, args(srv.url, "replayed")...)
	srv.stop(t)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\n%s", rep.code, rep.stderr)
	}
	if got, want := readFile(t, filepath.Join(dir, "replayed", "question_answer_log.md")), readFile(t, filepath.Join(dir, "recorded", "question_answer_log.md")); got != want {
		t.Errorf("replayed transcript differs:\n%s\n---\n%s", got, want)
	}
}

// drive --samples 3 against an ADK-JS server under adkproxy record: the
// proxy is switched to cassette default@N for sample N, so the folder
// holds default@1..3, and score pools them as three runs.
func TestDriveSamplesThenScorePoolsThem(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(corpus, "tests", "tool", "function_001", "spec.yaml")
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := t.TempDir()
	addrFile := filepath.Join(t.TempDir(), "addr")
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL, "--addr-file", addrFile)
	res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec, "--samples", "3",
		"--proxy-url", "http://"+strings.TrimSpace(readFile(t, addrFile)))
	srv.stop(t)
	if res.code != 0 {
		t.Fatalf("drive --samples 3: exit %d\n%s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	for n := 1; n <= 3; n++ {
		if _, err := os.Stat(filepath.Join(dir, "default@"+strconv.Itoa(n)+".yaml")); err != nil {
			t.Errorf("sample %d: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "default.yaml")); err == nil {
		t.Errorf("the unsampled cassette was written too")
	}
	sc := adkproxy(t, nil, "score", "--cassettes", dir)
	if !strings.Contains(sc.stdout, "3 runs pooled") || !strings.Contains(sc.stdout, "samples: ") {
		t.Errorf("score of the samples: exit %d\n%s%s", sc.code, sc.stdout, sc.stderr)
	}
	if r := adkproxy(t, nil, "drive", "--server", "http://127.0.0.1:1", "--app", "a", "--spec", spec, "--samples", "2"); r.code != exitUsage || !strings.Contains(r.stderr, "--proxy-url") {
		t.Errorf("--samples without --proxy-url: exit %d, %s", r.code, r.stderr)
	}
}
