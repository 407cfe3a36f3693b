package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// ADK's tool confirmation as ls, score, diff and the OTLP export show it,
// from ADK-JS's real traffic: ADK keeps adk_request_confirmation and the
// user's answer out of every model request, so a refusal shows as ADK's
// refusal result of the call, in the same invocation as the call; an
// approval as the tool's own result. Recorded once, replayed offline.
func TestToolConfirmationInLsScoreDiffExport(t *testing.T) {
	agents := filepath.Join(t.TempDir(), "agents")
	writeTestFile(t, agents, "booker/agent.mjs", bookerAgent)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	out := testutil.OutDir(t)
	evalset := writeTestFile(t, out, "booking.evalset.json", `{"eval_set_id": "booking", "eval_cases": [{"eval_id": "paris",
	  "conversation": [{"user_content": {"parts": [{"text": "Book a room in Paris"}]}}]}]}`)
	record := func(name, decision, shape string) string {
		dir := filepath.Join(out, name)
		srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL)
		res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "booker", "--evalset", evalset,
			"--confirm", decision, "--confirm-shape", shape, "--out", filepath.Join(out, name+".json"))
		srv.stop(t)
		if res.code != 0 {
			t.Fatalf("%s: drive exited %d: %s\nserver:\n%s", name, res.code, res.stderr, srv.stderr.String())
		}
		return dir
	}
	approved := record("approved", "approve", "object")
	refused := record("refused", "refuse", "json-string")

	// ls: the refusal is on the invocation that made the call.
	lsApproved, lsRefused := adkproxy(t, nil, "ls", approved), adkproxy(t, nil, "ls", refused)
	if !strings.Contains(lsRefused.stdout, "1 session, 1 invocation") ||
		!strings.Contains(lsRefused.stdout, `tools: confirm book_room(city="Paris")? → refused`) ||
		!strings.Contains(lsRefused.stdout, "← book_room (refused at confirmation)") {
		t.Errorf("ls of the refused run:\n%s%s", lsRefused.stdout, lsRefused.stderr)
	}
	if !strings.Contains(lsApproved.stdout, `tools: book_room(city="Paris")`) || strings.Contains(lsApproved.stdout, "refused") {
		t.Errorf("ls of the approved run:\n%s%s", lsApproved.stdout, lsApproved.stderr)
	}
	if h := adkproxy(t, nil, "ls", refused, "--format", "html"); !strings.Contains(h.stdout, "book_room (refused at confirmation) →") {
		t.Errorf("ls --format html of the refused run lacks the refusal:\n%s", h.stdout)
	}
	js := adkproxy(t, nil, "ls", refused, "--json")
	if !strings.Contains(js.stdout, `"refused": [
                {
                  "step": 0,
                  "call": 0,
                  "name": "book_room",`) {
		t.Errorf("ls --json of the refused run:\n%s", js.stdout)
	}

	// diff: a changed answer is a change of its own, which --fail-on tools fails.
	d := adkproxy(t, nil, "diff", approved, refused, "--fail-on", "tools")
	if d.code != 1 || !strings.Contains(d.stdout, "tool confirmations:\n        book_room confirmation: approved → refused") ||
		!strings.Contains(d.stdout, "1 confirmation changed") {
		t.Errorf("diff approved → refused: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}

	// OTLP: the refused call's execute_tool span, under the one invocation span, says so.
	otlp := adkproxy(t, nil, "export", refused, "--format", "otlp-json")
	if otlp.code != 0 || strings.Count(otlp.stdout, `"name": "invocation"`) != 1 ||
		!strings.Contains(otlp.stdout, `"key": "adkproxy.tool.confirmation"`) {
		t.Errorf("otlp of the refused run: exit %d\n%s%s", otlp.code, otlp.stdout, otlp.stderr)
	}
	if o := adkproxy(t, nil, "export", approved, "--format", "otlp-json"); strings.Contains(o.stdout, "adkproxy.tool.confirmation") {
		t.Errorf("otlp of the approved run marks a confirmation:\n%s", o.stdout)
	}

	// score: an eval set saved by ADK holds the adk_request_confirmation
	// call after the call it asks about (its arguments carry that call's
	// id, new every run); the trajectory leaves it out on both sides.
	adkSet := writeTestFile(t, out, "adk.evalset.json", `{"eval_set_id": "booking", "eval_cases": [{"eval_id": "paris",
	  "conversation": [{"user_content": {"parts": [{"text": "Book a room in Paris"}]},
	    "intermediate_data": {"invocation_events": [
	      {"author": "booker", "content": {"parts": [{"function_call": {"id": "adk-1", "name": "book_room", "args": {"city": "Paris"}}}]}},
	      {"author": "booker", "content": {"parts": [{"function_call": {"id": "adk-2", "name": "adk_request_confirmation",
	        "args": {"originalFunctionCall": {"id": "adk-1", "name": "book_room", "args": {"city": "Paris"}},
	                 "toolConfirmation": {"hint": "Please approve or reject the tool call book_room()", "confirmed": false}}}}]}}]}}]}]}`)
	cfg := writeTestFile(t, out, "tc.json", `{"criteria": {"tool_trajectory_avg_score": 1.0}}`)
	for _, dir := range []string{approved, refused} {
		s := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", adkSet, "--config", cfg)
		if s.code != 0 || !strings.Contains(s.stdout, "CASE paris  PASSED  (session default/1, 1 invocation)") {
			t.Errorf("score %s: exit %d\n%s%s", filepath.Base(dir), s.code, s.stdout, s.stderr)
		}
	}

	// Replayed offline with the same answer: the same run. With the other
	// answer the agent sends what was never recorded, and replay fails.
	replay := func(dir, decision, shape string) string {
		srv := startWrappedServer(t, agents, nil, "replay", "--cassettes", dir)
		res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "booker", "--evalset", evalset, "--confirm", decision, "--confirm-shape", shape)
		srv.stop(t)
		return res.stderr + srv.stderr.String()
	}
	if log := replay(refused, "refuse", "object"); !strings.Contains(log, "replayed 2 request(s): 2 matched, 0 mismatched, 0 unmatched") {
		t.Errorf("replay of the refused run with a refusal (the other shape):\n%s", log)
	}
	if log := replay(approved, "refuse", "object"); !strings.Contains(log, "step 1, agent booker: request differs from the recording") ||
		!strings.Contains(log, `functionResponse.response.error: added "This tool call is rejected."`) {
		t.Errorf("replay of the approved run with a refusal:\n%s", log)
	}
	if again := adkproxy(t, nil, "ls", refused); again.stdout != lsRefused.stdout {
		t.Errorf("ls after replay differs:\n%s\n---\n%s", again.stdout, lsRefused.stdout)
	}
}
