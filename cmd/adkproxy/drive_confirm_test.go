package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

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
