package adkapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/outbound"
)

// A hostile ADK API server: a 307 to another host:port is refused (the
// session and its state never reach it), and what the server says reaches
// the terminal without its control characters.
func TestClientDoesNotTrustTheServer(t *testing.T) {
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere++
		io.WriteString(w, `{"id": "s1", "appName": "a", "userId": "u", "state": {}, "events": []}`)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/sessions") {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		http.Error(w, "no \x1b[2Jsuch\x1b]8;;http://evil\x07 app\r", http.StatusNotFound)
	}))
	defer srv.Close()
	c, err := adkapi.New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateSession(context.Background(), "a", "u", map[string]any{"token": "secret"})
	if err == nil || !strings.Contains(err.Error(), "refused the redirect") || !strings.Contains(err.Error(), other.URL) {
		t.Errorf("CreateSession through a 307 to another origin: %v; want it refused, naming %s", err, other.URL)
	}
	if elsewhere != 0 {
		t.Errorf("the other origin got %d request(s)", elsewhere)
	}
	_, err = c.ListApps(context.Background())
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\r") || !strings.Contains(err.Error(), "such") {
		t.Errorf("ListApps error %q; want the server's text without control characters", err)
	}
}

// An endless event stream ends at the client's cap with an error naming
// the URL, not with the process out of memory.
func TestEndlessEventStreamIsCapped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		ev := []byte(strings.Repeat(`data: {"author": "agent", "content": {"parts": [{"text": "more"}]}}`+"\n\n", 100))
		for {
			if _, err := w.Write(ev); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := adkapi.New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	c.HTTPClient = outbound.Policy{MaxAnswer: 2 << 20}.Client()
	events, err := c.Run(context.Background(), adkapi.RunRequest{AppName: "a", UserID: "u", SessionID: "s",
		NewMessage: &genai.Content{Role: "user", Parts: []*genai.Part{{Text: "hi"}}}})
	if err == nil || !strings.Contains(err.Error(), "over 2097152 bytes") || !strings.Contains(err.Error(), srv.URL+"/run_sse") {
		t.Fatalf("%d events, error %v; want the cap's error", len(events), err)
	}
}
