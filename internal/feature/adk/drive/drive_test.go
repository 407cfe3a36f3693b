package drive_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/feature/adk/drive"
)

// approvalServer is a loopback ADK API server whose agent calls the
// long-running tool ask_for_approval with a fresh id on the first turn and
// checks that the next turn's function_response carries that id.
type approvalServer struct {
	mu       sync.Mutex
	state    map[string]any
	events   []json.RawMessage
	messages []json.RawMessage
	deltas   []map[string]any
}

func (s *approvalServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/apps/app/users/u/sessions":
		var req struct{ State map[string]any }
		_ = json.NewDecoder(r.Body).Decode(&req)
		s.state = req.State
		fmt.Fprint(w, `{"id":"s1","appName":"app","userId":"u","state":{},"events":[]}`)
	case r.Method == http.MethodGet && r.URL.Path == "/apps/app/users/u/sessions/s1":
		st, _ := json.Marshal(s.state)
		ev, _ := json.Marshal(s.events)
		fmt.Fprintf(w, `{"id":"s1","appName":"app","userId":"u","state":%s,"events":%s}`, st, ev)
	case r.Method == http.MethodPost && r.URL.Path == "/run_sse":
		var req adkapi.RunRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		msg, _ := json.Marshal(req.NewMessage)
		s.messages = append(s.messages, msg)
		s.deltas = append(s.deltas, req.StateDelta)
		s.events = append(s.events, msg)
		var ev string
		switch len(s.messages) {
		case 1:
			ev = `{"author":"agent","content":{"role":"model","parts":[{"functionCall":{"id":"adk-42","name":"ask_for_approval","args":{}}}]},"longRunningToolIds":["adk-42"]}`
		default:
			fr := req.NewMessage.Parts[0].FunctionResponse
			if fr == nil || fr.ID != "adk-42" {
				fmt.Fprint(w, "data: {\"error\": \"function_response without the call's id\"}\n\n")
				return
			}
			ev = `{"author":"agent","content":{"role":"model","parts":[{"text":"approved"}]}}`
		}
		s.events = append(s.events, json.RawMessage(ev))
		fmt.Fprintf(w, "data: %s\n\n", ev)
	default:
		http.NotFound(w, r)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDrivePatchesLongRunningCallID(t *testing.T) {
	spec, err := conformance.ReadSpec(writeFile(t, "spec.yaml", `agent: app
initial_state: {budget: 100}
user_messages:
  - text: Reimburse 500 for the trip
  - content:
      parts:
        - function_response:
            name: ask_for_approval
            response: {status: approved}
    state_delta: {approved_by: manager}
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := &approvalServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := adkapi.New(ts.URL, "")
	conv := drive.FromSpec(spec)
	s, err := (&drive.Driver{Client: c, App: "app", User: "u"}).Drive(t.Context(), conv)
	if err != nil {
		t.Fatalf("Drive: %v", err)
	}
	if len(s.Events) != 4 || s.State["budget"] != float64(100) {
		t.Fatalf("session = %s", s.Raw)
	}
	if !strings.Contains(string(srv.messages[1]), `"id":"adk-42"`) || srv.deltas[1]["approved_by"] != "manager" {
		t.Errorf("second turn sent %s with state delta %v", srv.messages[1], srv.deltas[1])
	}
	if conv.Turns[1].Content.Parts[0].FunctionResponse.ID != "" {
		t.Errorf("driving changed the conversation it was given")
	}
}

func TestDriveUnansweredFunctionResponse(t *testing.T) {
	spec, err := conformance.ReadSpec(writeFile(t, "spec.yaml", `agent: app
user_messages:
  - content:
      parts:
        - function_response: {name: ask_for_approval, response: {status: approved}}
`))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(&approvalServer{})
	defer ts.Close()
	c, _ := adkapi.New(ts.URL, "")
	s, err := (&drive.Driver{Client: c, App: "app", User: "u"}).Drive(t.Context(), drive.FromSpec(spec))
	var te *drive.TurnError
	if !errors.As(err, &te) || !errors.Is(err, drive.ErrUnansweredCall) || te.Turn != 0 {
		t.Fatalf("err = %v, want a TurnError for turn 0 wrapping ErrUnansweredCall", err)
	}
	if !strings.Contains(err.Error(), "spec.yaml:3") || !strings.Contains(err.Error(), "ask_for_approval") {
		t.Errorf("error %q does not name the spec line and the function", err)
	}
	if s == nil || len(s.Events) != 0 {
		t.Errorf("the session should still be returned, empty: %+v", s)
	}
}

func TestDriveKeepsSessionOfAFailedTurn(t *testing.T) {
	srv := &approvalServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := adkapi.New(ts.URL, "")
	spec, err := conformance.ReadSpec(writeFile(t, "spec.yaml", "agent: app\nuser_messages:\n  - text: one\n  - text: two\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The second turn is text, not the function_response the server wants.
	s, err := (&drive.Driver{Client: c, App: "app", User: "u"}).Drive(t.Context(), drive.FromSpec(spec))
	var se *adkapi.StreamError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "turn 2") {
		t.Fatalf("err = %v, want turn 2's stream error", err)
	}
	if s == nil || len(s.Events) != 3 {
		t.Fatalf("the session of the failed run was not kept: %+v", s)
	}
}

func parseEvalSet(name string, data []byte) ([]*evalset.EvalSet, error) {
	set, err := evalset.ParseEvalSet(name, data)
	return []*evalset.EvalSet{set}, err
}

func TestFromEvalSet(t *testing.T) {
	sets, err := parseEvalSet("set.evalset.json", []byte(`{"eval_set_id":"set","eval_cases":[
	 {"eval_id":"c1","conversation":[{"user_content":{"role":"user","parts":[{"text":"hi"}]}},{"user_content":{"role":"user","parts":[{"text":"bye"}]}}]},
	 {"eval_id":"c2","conversation_scenario":{"starting_prompt":"hello","conversation_plan":"ask"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	convs, skipped := drive.FromEvalSet(sets)
	if len(convs) != 1 || len(convs[0].Turns) != 2 || convs[0].Turns[1].Content.Parts[0].Text != "bye" {
		t.Fatalf("conversations = %+v", convs)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "c2") || !strings.Contains(skipped[0], "conversation_scenario") {
		t.Errorf("skipped = %v", skipped)
	}
}

// An eval case's session_input gives the session its user and state.
func TestDriveEvalSetCaseSessionInput(t *testing.T) {
	sets, err := parseEvalSet("set.evalset.json", []byte(`{"eval_set_id":"set","eval_cases":[
	 {"eval_id":"c1","session_input":{"app_name":"app","user_id":"u","state":{"budget":100}},
	  "conversation":[{"user_content":{"role":"user","parts":[{"text":"hi"}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	convs, _ := drive.FromEvalSet(sets)
	if len(convs) != 1 {
		t.Fatalf("conversations = %+v", convs)
	}
	srv := &approvalServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client, err := adkapi.New(ts.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	d := &drive.Driver{Client: client, App: "app", User: "someone-else"}
	s, err := d.Drive(t.Context(), convs[0])
	if err != nil {
		t.Fatal(err)
	}
	if s.State["budget"] != float64(100) {
		t.Errorf("the session started with state %v, want the case's {budget: 100}", s.State)
	}
}
