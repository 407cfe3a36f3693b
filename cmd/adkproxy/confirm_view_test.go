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
// user's answer out of every model request, so drive reports its answer to
// the recording proxy (--proxy-url), which files it on the step carrying
// the tool's result: approvals show too, in both of ADK's shapes. Without
// a report a refusal still shows as ADK's refusal result of the call, an
// approval as the tool's own result. Recorded once, replayed offline.
func TestToolConfirmationInLsScoreDiffExport(t *testing.T) {
	t.Parallel()
	agents := filepath.Join(t.TempDir(), "agents")
	writeTestFile(t, agents, "booker/agent.mjs", bookerAgent)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	out := testutil.OutDir(t)
	evalset := writeTestFile(t, out, "booking.evalset.json", `{"eval_set_id": "booking", "eval_cases": [{"eval_id": "paris",
	  "conversation": [{"user_content": {"parts": [{"text": "Book a room in Paris"}]}}]}]}`)
	// drive reports each answer to the recording proxy (--proxy-url: the
	// address --addr-file names), which ADK never sends to the model.
	record := func(name, decision, shape string, report bool, extra ...string) string {
		dir := filepath.Join(out, name)
		addrFile := filepath.Join(t.TempDir(), "addr")
		srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL, "--addr-file", addrFile)
		args := []string{"drive", "--server", srv.url, "--app", "booker", "--evalset", evalset,
			"--confirm", decision, "--confirm-shape", shape, "--out", filepath.Join(out, name+".json")}
		args = append(args, extra...)
		if report {
			args = append(args, "--proxy-url", "http://"+strings.TrimSpace(readFile(t, addrFile)))
		}
		res := adkproxy(t, nil, args...)
		srv.stop(t)
		if res.code != 0 {
			t.Fatalf("%s: drive exited %d: %s\nserver:\n%s", name, res.code, res.stderr, srv.stderr.String())
		}
		return dir
	}
	approved := record("approved", "approve", "object", true)
	approvedJS := record("approved-json-string", "approve", "json-string", true)
	refused := record("refused", "refuse", "json-string", true)
	unreported := record("unreported", "approve", "object", false)
	// drive --confirm-payload: ADK gets the payload with the answer, the
	// cassette keeps it (numbers exactly as written).
	withDrivePayload := record("approved-payload", "approve", "json-string", true, "--confirm-payload", `{"rooms": 2, "rate": 120.5}`)
	if c := readFile(t, filepath.Join(withDrivePayload, "default.yaml")); !strings.Contains(c, "payload: {rate: 120.5, rooms: 2}\n") {
		t.Errorf("the cassette lacks drive's payload:\n%s", c)
	}
	if sent := readFile(t, filepath.Join(out, "approved-payload.json")); !strings.Contains(sent, `\"payload\":{\"rate\":120.5,\"rooms\":2}`) {
		t.Errorf("the session lacks the answer's payload:\n%s", sent)
	}
	if d := adkproxy(t, nil, "diff", approvedJS, withDrivePayload); !strings.Contains(d.stdout, `book_room confirmation.payload: added {"rate":120.5,"rooms":2}`) {
		t.Errorf("diff of an answer without and with a payload: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}

	// The cassettes hold the answers, on the step that carried the tool's
	// result (or ADK's refusal), in the shape drive sent.
	for _, tc := range []struct{ dir, want string }{
		{approved, "confirmations:\n              - tool: book_room\n                args: {city: Paris}\n                confirmed: true\n                hint: "},
		{approvedJS, "confirmed: true\n"},
		{approvedJS, "shape: json-string\n"},
		{refused, "confirmed: false\n"},
	} {
		if c := readFile(t, filepath.Join(tc.dir, "default.yaml")); !strings.Contains(c, tc.want) {
			t.Errorf("%s lacks %q:\n%s", filepath.Base(tc.dir), tc.want, c)
		}
	}
	if c := readFile(t, filepath.Join(unreported, "default.yaml")); strings.Contains(c, "confirmations:") {
		t.Errorf("a run that reported nothing has confirmations:\n%s", c)
	}

	// ls: the answer is on the invocation that made the call, an approval
	// as well as a refusal.
	lsApproved, lsRefused := adkproxy(t, nil, "ls", approved), adkproxy(t, nil, "ls", refused)
	if !strings.Contains(lsRefused.stdout, "1 session, 1 invocation") ||
		!strings.Contains(lsRefused.stdout, `tools: confirm book_room(city="Paris")? → refused`) ||
		!strings.Contains(lsRefused.stdout, "← book_room (refused at confirmation)") {
		t.Errorf("ls of the refused run:\n%s%s", lsRefused.stdout, lsRefused.stderr)
	}
	if !strings.Contains(lsApproved.stdout, "1 session, 1 invocation") ||
		!strings.Contains(lsApproved.stdout, `tools: confirm book_room(city="Paris")? → approved`) || strings.Contains(lsApproved.stdout, "refused") {
		t.Errorf("ls of the approved run:\n%s%s", lsApproved.stdout, lsApproved.stderr)
	}
	if ls := adkproxy(t, nil, "ls", unreported); !strings.Contains(ls.stdout, `tools: book_room(city="Paris")`) || strings.Contains(ls.stdout, "confirm ") {
		t.Errorf("ls of the run that reported nothing:\n%s%s", ls.stdout, ls.stderr)
	}
	if js := adkproxy(t, nil, "ls", approvedJS, "--json"); !strings.Contains(js.stdout, `"confirmations": [
                {
                  "step": 0,
                  "call": 0,
                  "name": "book_room",
                  "args": {
                    "city": "Paris"
                  },
                  "decision": "approved",
                  "payload": null,
                  "shape": "json-string",`) {
		t.Errorf("ls --json of the approved run (json-string):\n%s", js.stdout)
	}
	if h := adkproxy(t, nil, "ls", refused, "--format", "html"); !strings.Contains(h.stdout, "book_room (refused at confirmation) →") {
		t.Errorf("ls --format html of the refused run lacks the refusal:\n%s", h.stdout)
	}
	if h := adkproxy(t, nil, "ls", approved, "--format", "html"); !strings.Contains(h.stdout, "confirm book_room(city=&#34;Paris&#34;)? → approved") {
		t.Errorf("ls --format html of the approved run lacks the approval:\n%s", h.stdout)
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
	if o := adkproxy(t, nil, "export", approved, "--format", "otlp-json"); !strings.Contains(strings.Join(strings.Fields(o.stdout), " "),
		`"key": "adkproxy.tool.confirmation", "value": { "stringValue": "approved" }`) {
		t.Errorf("otlp of the approved run does not mark the approval:\n%s", o.stdout)
	}
	if o := adkproxy(t, nil, "export", unreported, "--format", "otlp-json"); strings.Contains(o.stdout, "adkproxy.tool.confirmation") {
		t.Errorf("otlp of the run that reported nothing marks a confirmation:\n%s", o.stdout)
	}
	// Both of ADK's shapes approve alike: the same run.
	if d := adkproxy(t, nil, "diff", approved, approvedJS, "--fail-on", "tools"); d.code != 0 {
		t.Errorf("diff of the two approval shapes: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}

	// An answer with a payload (another client's, through the control
	// API): ls shows it, diff compares it, the OTLP export carries it.
	withPayload := func(name, payload string) string {
		c := readFile(t, filepath.Join(approved, "default.yaml"))
		edited := strings.Replace(c, "confirmed: true\n", "confirmed: true\n                payload: "+payload+"\n", 1)
		if edited == c {
			t.Fatalf("no answer to give a payload in:\n%s", c)
		}
		dir := filepath.Join(out, name)
		writeTestFile(t, dir, "default.yaml", edited)
		return dir
	}
	two, three := withPayload("payload-2", "{rooms: 2}"), withPayload("payload-3", "{rooms: 3}")
	if ls := adkproxy(t, nil, "ls", two); !strings.Contains(ls.stdout, `confirm book_room(city="Paris")? → approved (payload {"room`) {
		t.Errorf("ls of an answer with a payload:\n%s%s", ls.stdout, ls.stderr)
	}
	if js := adkproxy(t, nil, "ls", two, "--json"); !strings.Contains(js.stdout, `"decision": "approved",
                  "payload": {
                    "rooms": 2
                  },`) {
		t.Errorf("ls --json of an answer with a payload:\n%s", js.stdout)
	}
	if d := adkproxy(t, nil, "diff", two, three); !strings.Contains(d.stdout, "book_room confirmation.payload.rooms: 2 → 3") {
		t.Errorf("diff of two payloads: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
	if o := adkproxy(t, nil, "export", three, "--format", "otlp-json"); !strings.Contains(strings.Join(strings.Fields(o.stdout), " "),
		`"key": "adkproxy.tool.confirmation.payload", "value": { "stringValue": "{\"rooms\": 3}" }`) {
		t.Errorf("otlp of an answer with a payload:\n%s", o.stdout)
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
	for _, dir := range []string{approved, approvedJS, refused} {
		s := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", adkSet, "--config", cfg)
		if s.code != 0 || !strings.Contains(s.stdout, "CASE paris  PASSED  (session default/1, 1 invocation)") {
			t.Errorf("score %s: exit %d\n%s%s", filepath.Base(dir), s.code, s.stdout, s.stderr)
		}
	}

	// Replayed offline with the same answer: the same run. With the other
	// answer the agent sends what was never recorded, and replay fails.
	replay := func(dir, decision, shape string) string {
		addrFile := filepath.Join(t.TempDir(), "addr")
		srv := startWrappedServer(t, agents, nil, "replay", "--cassettes", dir, "--addr-file", addrFile)
		res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "booker", "--evalset", evalset, "--confirm", decision, "--confirm-shape", shape,
			"--proxy-url", "http://"+strings.TrimSpace(readFile(t, addrFile)))
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
	if log := replay(approved, "approve", "json-string"); !strings.Contains(log, "replayed 2 request(s): 2 matched, 0 mismatched, 0 unmatched") {
		t.Errorf("replay of the approved run with an approval (the other shape):\n%s", log)
	}
	if again := adkproxy(t, nil, "ls", approved); again.stdout != lsApproved.stdout {
		t.Errorf("ls after replay differs:\n%s\n---\n%s", again.stdout, lsApproved.stdout)
	}
	if again := adkproxy(t, nil, "ls", refused); again.stdout != lsRefused.stdout {
		t.Errorf("ls after replay differs:\n%s\n---\n%s", again.stdout, lsRefused.stdout)
	}
}
