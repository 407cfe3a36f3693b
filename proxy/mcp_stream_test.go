package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/toolfake"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// sseMCPServer speaks MCP's older HTTP+SSE transport: GET /sse announces
// the endpoint /messages/?session_id=s1, and each POST there is answered
// 202 with its response (a result that changes on every call) on the
// stream.
func sseMCPServer(t *testing.T) *httptest.Server {
	answers := make(chan string, 16)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\r\ndata: /messages/?session_id=s1\r\n\r\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case a := <-answers:
					fmt.Fprint(w, "event: message\r\ndata: "+a+"\r\n\r\n")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodPost && r.URL.Path == "/messages/":
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			b, _ := io.ReadAll(r.Body)
			json.Unmarshal(b, &m)
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "Accepted")
			if m.ID != nil {
				answers <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"n":%d}}`, m.ID, n.Add(1))
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// sseSession is a client of the HTTP+SSE transport through the proxy: it
// opens the stream, then posts each request to the endpoint it announced
// and reads its answer from the stream. Its ids start at first.
func sseSession(t *testing.T, client *http.Client, first int, city string) []string {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://mcp.test/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	next := func() (event, data string) {
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("the stream ended: %v", err)
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "" && data != "":
				return event, data
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}
	kind, endpoint := next()
	if kind != "endpoint" {
		t.Fatalf("the stream began with %s %s, not its endpoint", kind, endpoint)
	}
	var answers []string
	for i, body := range []string{
		`"method":"initialize","params":{"protocolVersion":"2024-11-05"}`,
		`"method":"tools/list"`,
		`"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"` + city + `"}}`,
	} {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, first+i, body)
		post, err := client.Post("http://mcp.test"+endpoint, "application/json", strings.NewReader(msg))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, post.Body)
		post.Body.Close()
		if post.StatusCode != http.StatusAccepted && city == "Paris" {
			t.Fatalf("POST %s: %d", msg, post.StatusCode)
		}
		_, data := next()
		answers = append(answers, data)
	}
	return answers
}

// TestMCPHTTPSSEReplay: MCP's older HTTP+SSE transport is recorded (the
// stream as one exchange, each POST as its own) and replayed with the
// server stopped: the stream is held open after its endpoint, and each
// POST's response comes on it after the POST's 202, with the id the
// client sent; a fake's answer to a tools/call comes on the stream too,
// and so does the error refusing a changed one, which the client would
// otherwise wait for.
func TestMCPHTTPSSEReplay(t *testing.T) {
	dir := testutil.OutDir(t)
	up := sseMCPServer(t)
	routes := []proxy.ConnectTo{{From: "mcp.test:80", To: strings.TrimPrefix(up.URL, "http://")}}
	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes,
		Forward: &proxy.ForwardProxy{Leaf: newCA(t).Leaf}})
	recorded := sseSession(t, proxiedClient(recHTTP.URL, nil), 0, "Paris")
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close()

	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: newCA(t).Leaf}})
	replayed := sseSession(t, proxiedClient(repHTTP.URL, nil), 10, "Paris")
	repHTTP.Close()
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rep.Failure(); err != nil {
		t.Errorf("strict replay of the HTTP+SSE session failed: %v", err)
	}
	for i := range recorded {
		want := strings.Replace(recorded[i], fmt.Sprintf(`"id":%d`, i), fmt.Sprintf(`"id":%d`, 10+i), 1)
		if replayed[i] != want {
			t.Errorf("answer %d on the stream: replayed %s, want %s", i, replayed[i], want)
		}
	}

	fakes := filepath.Join(t.TempDir(), "fakes.yaml")
	os.WriteFile(fakes, []byte("fakes:\n  - tool: get_weather\n    result: {temp_c: 21, faked: true}\n"), 0o600)
	set, err := toolfake.Load(fakes)
	if err != nil {
		t.Fatal(err)
	}
	faked, fakedHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Lenient: true, Dir: dir, ToolFakes: set,
		Forward: &proxy.ForwardProxy{Leaf: newCA(t).Leaf}})
	got := sseSession(t, proxiedClient(fakedHTTP.URL, nil), 0, "Paris")
	fakedHTTP.Close()
	faked.Close()
	if !strings.Contains(got[2], `"id":2`) || !strings.Contains(got[2], `\"faked\":true`) {
		t.Errorf("the fake's answer on the stream: %s", got[2])
	}

	changed, changedHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: newCA(t).Leaf}})
	got = sseSession(t, proxiedClient(changedHTTP.URL, nil), 0, "Lyon")
	changedHTTP.Close()
	changed.Close()
	if !strings.Contains(got[2], `"error":{"code":-32603`) || !strings.Contains(got[2], `"id":2`) || !strings.Contains(got[2], "MCP server mcp.test/messages/ tool get_weather") ||
		!strings.Contains(got[2], `arguments.city: recorded \"Paris\", got \"Lyon\"`) {
		t.Errorf("a changed tools/call's error on the stream: %s", got[2])
	}
}
