package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
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
}
