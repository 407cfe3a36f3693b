package adkapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
)

// strictServer is a loopback ADK API server that decodes run_sse bodies
// strictly, as ADK Go does, and answers with the stream the test sets.
type strictServer struct {
	t      *testing.T
	prefix string
	stream string // the run_sse answer
	runs   []adkapi.RunRequest
	bodies []string
}

func (s *strictServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.EscapedPath(), s.prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodGet && path == "/health":
		fmt.Fprint(w, `{"status":"ok"}`)
	case r.Method == http.MethodGet && path == "/list-apps":
		fmt.Fprint(w, `["app_one","app_two"]`)
	case r.Method == http.MethodPost && path == "/apps/my%20app/users/u%2F1/sessions":
		var req struct {
			State map[string]any `json:"state"`
		}
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil || req.State == nil {
			http.Error(w, "bad session body: "+string(body), http.StatusBadRequest)
			return
		}
		st, _ := json.Marshal(req.State)
		fmt.Fprintf(w, `{"id":"s-1","appName":"my app","userId":"u/1","state":%s,"events":[],"lastUpdateTime":1.5,"extra":{"kept":true}}`, st)
	case r.Method == http.MethodGet && path == "/apps/my%20app/users/u%2F1/sessions/s-1":
		fmt.Fprint(w, `{"id":"s-1","appName":"my app","userId":"u/1","state":{},"events":[{"id":"e1","author":"user","invocationId":"i1","timestamp":2,"content":{"role":"user","parts":[{"text":"hi"}]},"actions":{},"custom":[1,2]}],"lastUpdateTime":2}`)
	case r.Method == http.MethodPost && path == "/run_sse":
		var req adkapi.RunRequest
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			http.Error(w, "strict decode: "+err.Error(), http.StatusBadRequest)
			return
		}
		s.runs = append(s.runs, req)
		s.bodies = append(s.bodies, string(body))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, s.stream)
	default:
		http.Error(w, "no route "+r.Method+" "+path, http.StatusNotFound)
	}
}

func start(t *testing.T, prefix, stream string) (*strictServer, *adkapi.Client) {
	t.Helper()
	s := &strictServer{t: t, prefix: prefix, stream: stream}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := adkapi.New(srv.URL+"/", prefix)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestSessionLifecycleUnderPrefix(t *testing.T) {
	_, c := start(t, "/api", "")
	ctx := t.Context()
	if err := c.Health(ctx); err != nil {
		t.Fatalf("Health: %v", err)
	}
	apps, err := c.ListApps(ctx)
	if err != nil || strings.Join(apps, ",") != "app_one,app_two" {
		t.Fatalf("ListApps = %v, %v", apps, err)
	}
	s, err := c.CreateSession(ctx, "my app", "u/1", map[string]any{"topic": "math"})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	if s.ID != "s-1" || s.State["topic"] != "math" || s.LastUpdateTime != 1.5 {
		t.Errorf("CreateSession decoded %+v", s)
	}
	out, _ := json.Marshal(s)
	if !strings.Contains(string(out), `"extra":{"kept":true}`) {
		t.Errorf("a field the client does not know was lost: %s", out)
	}
	got, err := c.GetSession(ctx, "my app", "u/1", "s-1")
	if err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	if len(got.Events) != 1 || got.Events[0].Author != "user" || got.Events[0].Content.Parts[0].Text != "hi" {
		t.Fatalf("GetSession events = %+v", got.Events)
	}
	ev, _ := json.Marshal(got.Events[0])
	if !strings.Contains(string(ev), `"custom":[1,2]`) {
		t.Errorf("the event lost a field the client does not know: %s", ev)
	}
}

func TestCreateSessionWithoutStateSendsEmptyObject(t *testing.T) {
	_, c := start(t, "", "")
	if _, err := c.CreateSession(t.Context(), "my app", "u/1", nil); err != nil {
		t.Fatalf("CreateSession(nil state): %v", err)
	}
}

func TestRunSendsOnlySharedFieldsAndReadsEvents(t *testing.T) {
	stream := ": a comment\r\n" +
		"data: {\"id\":\"e1\",\"author\":\"root\",\"invocationId\":\"i1\",\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"fc-1\",\"name\":\"ask\",\"args\":{\"q\":1}}}]},\"longRunningToolIds\":[\"fc-1\"],\"actions\":{\"stateDelta\":{\"k\":\"v\"}}}\r\n\r\n" +
		"event: message\n" +
		"data: {\"id\":\"e2\",\"author\":\"root\",\n" +
		"data: \"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"done\"}]},\"actions\":{\"transferToAgent\":\"other\"}}\n\n" +
		"data: {\"id\":\"e3\",\"author\":\"root\",\"actions\":{}}" // no final blank line
	srv, c := start(t, "", stream)
	events, err := c.Run(t.Context(), adkapi.RunRequest{
		AppName: "my app", UserID: "u/1", SessionID: "s-1",
		NewMessage: genai.NewContentFromText("hello", genai.RoleUser),
		StateDelta: map[string]any{"mood": "curious"},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(events) != 3 {
		t.Fatalf("got %d events, want 3: %+v", len(events), events)
	}
	calls := events[0].FunctionCalls()
	if len(calls) != 1 || calls[0].ID != "fc-1" || calls[0].Name != "ask" || events[0].LongRunningToolIDs[0] != "fc-1" {
		t.Errorf("event 1's function call = %+v", calls)
	}
	if events[0].Actions.StateDelta["k"] != "v" || events[1].Actions.TransferToAgent != "other" || events[1].Content.Parts[0].Text != "done" {
		t.Errorf("decoded actions/content wrong: %+v / %+v", events[0].Actions, events[1])
	}
	if !strings.Contains(string(events[1].Raw), "\n") {
		t.Errorf("a two-line data event was not joined with a newline: %s", events[1].Raw)
	}
	want := `{"appName":"my app","userId":"u/1","sessionId":"s-1","newMessage":{"parts":[{"text":"hello"}],"role":"user"},"streaming":false,"stateDelta":{"mood":"curious"}}`
	if len(srv.bodies) != 1 || srv.bodies[0] != want {
		t.Errorf("run_sse body =\n%v\nwant\n%s", srv.bodies, want)
	}
	// ADK's streaming mode, asked for.
	if _, err := c.Run(t.Context(), adkapi.RunRequest{AppName: "a", UserID: "u", SessionID: "s",
		NewMessage: genai.NewContentFromText("x", genai.RoleUser), Streaming: true}); err != nil {
		t.Fatal(err)
	}
	if got := srv.bodies[len(srv.bodies)-1]; !strings.Contains(got, `"streaming":true`) || strings.Contains(got, "stateDelta") {
		t.Errorf("streaming run_sse body = %s", got)
	}
}

func TestRunStreamError(t *testing.T) {
	_, c := start(t, "", "data: {\"id\":\"e1\",\"author\":\"root\"}\n\ndata: {\"error\": \"tool boom failed\"}\n\n")
	events, err := c.Run(t.Context(), adkapi.RunRequest{AppName: "a", UserID: "u", SessionID: "s", NewMessage: genai.NewContentFromText("x", genai.RoleUser)})
	var se *adkapi.StreamError
	if !errors.As(err, &se) {
		t.Fatalf("Run error = %v, want a *StreamError", err)
	}
	if se.Message != "tool boom failed" || len(events) != 1 || !strings.Contains(err.Error(), "/run_sse") {
		t.Errorf("StreamError = %v with %d events", err, len(events))
	}
}

func TestRunBadEvent(t *testing.T) {
	_, c := start(t, "", "data: {\"id\":\"e1\"}\n\ndata: not json\n\n")
	events, err := c.Run(t.Context(), adkapi.RunRequest{AppName: "a", UserID: "u", SessionID: "s", NewMessage: genai.NewContentFromText("x", genai.RoleUser)})
	if !errors.Is(err, adkapi.ErrBadResponse) || len(events) != 1 {
		t.Fatalf("Run = %d events, %v; want 1 and ErrBadResponse", len(events), err)
	}
	for _, want := range []string{"/run_sse", "line 4", "not json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestHTTPErrorNamesURLAndAnswer(t *testing.T) {
	_, c := start(t, "/api", "")
	c.Prefix = "" // the wrong prefix for this server
	_, err := c.CreateSession(t.Context(), "my app", "u/1", nil)
	var he *adkapi.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusNotFound {
		t.Fatalf("err = %v, want a 404 *HTTPError", err)
	}
	for _, want := range []string{"POST", "/apps/my%20app/users/u%2F1/sessions", "404", "--prefix"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	_, err = c.Run(t.Context(), adkapi.RunRequest{AppName: "a", UserID: "u", SessionID: "s"})
	if err == nil || !strings.Contains(err.Error(), "newMessage") {
		t.Errorf("Run without a message: %v", err)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8000", "ftp://x", "http://"} {
		if _, err := adkapi.New(u, ""); err == nil {
			t.Errorf("New(%q) accepted it", u)
		}
	}
	c, err := adkapi.New("http://h:1", "api/")
	if err != nil || c.Prefix != "/api" {
		t.Errorf("New prefix = %+v, %v", c, err)
	}
}

func TestUnreadableJSONAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>hi</html>") }))
	defer srv.Close()
	c, _ := adkapi.New(srv.URL, "")
	_, err := c.ListApps(t.Context())
	if !errors.Is(err, adkapi.ErrBadResponse) || !strings.Contains(err.Error(), "<html>hi</html>") || !strings.Contains(err.Error(), "/list-apps") {
		t.Errorf("err = %v", err)
	}
}
