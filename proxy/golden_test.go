package proxy_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// updateGolden rewrites testdata/golden from what the proxy records now:
// go test ./proxy/ -run TestGoldenCassettes -update
var updateGolden = flag.Bool("update", false, "rewrite the golden cassettes in testdata/golden from this run")

// goldenDir holds the cassettes TestGoldenCassettes must record, byte for byte.
const goldenDir = "testdata/golden"

// timings are the only recorded values that change from run to run: the
// time an answer, an SSE event or a Live frame took to come. The test
// writes each as 1 (the field's presence, which other code decides, is
// still compared).
var timings = regexp.MustCompile(`(?m)^(\s*(?:- )?(?:latency_ms|after_ms|at_ms)): [0-9.]+$`)

// recordedAt and recordedBy are the provenance's time and adkproxy version,
// which change from run to run and build to build; they are read as
// "recorded_at: 2006-01-02T15:04:05Z" and "adkproxy: (version)".
var (
	recordedAt = regexp.MustCompile(`(?m)^(\s*recorded_at): \S+$`)
	recordedBy = regexp.MustCompile(`(?m)^(\s*adkproxy): .+$`)
)

// stable is a cassette's bytes with the values that change from run to
// run replaced by fixed ones.
func stable(data []byte) []byte {
	data = timings.ReplaceAll(data, []byte("$1: 1"))
	data = recordedAt.ReplaceAll(data, []byte("$1: 2006-01-02T15:04:05Z"))
	return recordedBy.ReplaceAll(data, []byte("$1: (version)"))
}

// TestGoldenCassettes records fixed, scripted traffic through a real proxy
// in front of a real loopback upstream (generateContent JSON, a tool call
// and its result over two turns, the HTTP tool exchange between them, an
// SSE stream, an Interactions API call and a Live session) and requires
// the cassettes it writes to equal the committed golden files byte for
// byte, timings aside. A change that moves a byte of what users commit
// fails here; when it is meant, -update rewrites the files, and the diff
// is part of the change.
func TestGoldenCassettes(t *testing.T) {
	dir := testutil.OutDir(t)
	up := httptest.NewServer(goldenUpstream(t))
	t.Cleanup(up.Close)
	tools := httptest.NewServer(http.HandlerFunc(goldenTool))
	t.Cleanup(tools.Close)

	srv, hs := serveForward(t, proxy.Config{
		Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		ConnectTo: []proxy.ConnectTo{{From: "tools.example.test:80", To: tools.Listener.Addr().String()}},
		Forward:   &proxy.ForwardProxy{Leaf: newCA(t).Leaf},
	})
	goldenTraffic(t, hs.URL)
	hs.Close()
	if err := srv.Close(); err != nil {
		t.Fatalf("writing cassettes: %v", err)
	}
	if err := srv.Failure(); err != nil {
		t.Fatalf("the recording failed: %v", err)
	}
	if st := srv.Stats(); st.Recorded != 7 {
		t.Fatalf("recorded %d exchanges, want 7 (5 model calls, 1 tool call, 1 Live session): %+v", st.Recorded, st)
	}

	got := readCassettes(t, dir)
	if *updateGolden {
		if err := os.RemoveAll(goldenDir); err != nil {
			t.Fatal(err)
		}
		for name, data := range got {
			path := filepath.Join(goldenDir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	want := readCassettes(t, goldenDir)
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: not written by this run", name)
		case !bytes.Equal(g, w):
			t.Errorf("%s differs from the golden file (go test ./proxy/ -run TestGoldenCassettes -update rewrites it, if the change is meant):\n%s", name, firstDifference(w, g))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: written by this run but not in %s", name, goldenDir)
		}
	}
}

// goldenTraffic is what an agent sends: a weather question answered by a
// tool call, the tool's HTTP call, the result back to the model, a second
// turn streamed, an Interactions API call and a Live session.
func goldenTraffic(t *testing.T, base string) {
	t.Helper()
	key := http.Header{"X-Goog-Api-Key": {testutil.SecretAPIKey}, proxy.HeaderCassette: {"weather"}}
	const system = `"systemInstruction":{"parts":[{"text":"You are a weather agent."}]},` +
		`"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}}]}]`
	const ask = `{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}`
	const call = `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`
	const result = `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"city":"Paris","temp_c":18}}}]}`
	const answer = `{"role":"model","parts":[{"text":"It is 18°C in Paris."}]}`
	const again = `{"role":"user","parts":[{"text":"And tomorrow?"}]}`
	const model = "/v1beta/models/gemini-2.5-flash"

	goldenPost(t, base+model+":generateContent", key, `{"contents":[`+ask+`],`+system+`}`)
	client := proxiedClient(base, nil)
	req, _ := http.NewRequest(http.MethodGet, "http://tools.example.test/v1/current?city=Paris", nil)
	req.Header.Set(proxy.HeaderCassette, "weather")
	req.Header.Set("X-Api-Key", testutil.SecretToolHeader)
	goldenDo(t, client, req)
	goldenPost(t, base+model+":generateContent", key, `{"contents":[`+ask+`,`+call+`,`+result+`],`+system+`}`)
	goldenPost(t, base+model+":streamGenerateContent?alt=sse", key, `{"contents":[`+ask+`,`+call+`,`+result+`,`+answer+`,`+again+`],`+system+`}`)
	goldenPost(t, base+model+":countTokens", key, `{"contents":[`+again+`]}`)
	goldenPost(t, base+"/v1beta/interactions", key, `{"model":"gemini-2.5-flash","input":"Say hello."}`)

	ws, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+
		"/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent",
		http.Header{"X-Goog-Api-Key": {testutil.SecretAPIKey}, proxy.HeaderCassette: {"live"}})
	if err != nil {
		t.Fatalf("dial Live: %v (%v)", err, resp)
	}
	defer ws.Close()
	for _, frame := range []string{
		`{"setup":{"model":"models/gemini-live-2.5-flash-preview","tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}}`,
		`{"clientContent":{"turns":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}],"turnComplete":true}}`,
		`{"toolResponse":{"functionResponses":[{"id":"call-1","name":"get_weather","response":{"city":"Paris","temp_c":18}}]}}`,
	} {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		ws.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, _, err := ws.ReadMessage(); err != nil {
			t.Fatalf("Live answer to %s: %v", frame, err)
		}
	}
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the client's close: %v, want the upstream's close echoed", err)
	}
}

func goldenPost(t *testing.T, url string, header http.Header, body string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	goldenDo(t, http.DefaultClient, req)
}

func goldenDo(t *testing.T, client *http.Client, req *http.Request) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, body)
	}
}

// goldenUpstream answers each request with a fixed script: nothing in it
// depends on time or on the order of goroutines.
func goldenUpstream(t *testing.T) http.Handler {
	const usage = `"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":%d,"totalTokenCount":%d},"modelVersion":"gemini-2.5-flash"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Header().Set("Vary", "Origin")
		switch {
		case strings.HasSuffix(r.URL.Path, "BidiGenerateContent"):
			goldenLive(t, w, r)
		case strings.HasSuffix(r.URL.Path, ":generateContent") && !bytes.Contains(body, []byte("functionResponse")):
			fmt.Fprintf(w, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},"finishReason":"STOP"}],`+usage+`,"responseId":"resp-1"}`, 21, 5, 26)
		case strings.HasSuffix(r.URL.Path, ":generateContent"):
			fmt.Fprintf(w, "{\n  \"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"It is 18°C in Paris.\"}]}, \"finishReason\": \"STOP\"}],\n  "+usage+",\n  \"responseId\": \"resp-2\"\n}\n", 40, 9, 49)
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			for i, text := range []string{"Tomorrow ", "it will be ", "sunny."} {
				finish := ""
				if i == 2 {
					finish = `,"finishReason":"STOP"`
				}
				fmt.Fprintf(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":%q}]}%s}],`+usage+`,"responseId":"resp-3"}`+"\r\n\r\n", text, finish, 55, 4*(i+1), 55+4*(i+1))
				w.(http.Flusher).Flush()
			}
		case strings.HasSuffix(r.URL.Path, ":countTokens"):
			fmt.Fprint(w, `{"totalTokens":3}`)
		case strings.HasSuffix(r.URL.Path, "/interactions"):
			fmt.Fprint(w, `{"id":"v1_interaction-1","model":"gemini-2.5-flash","status":"completed","role":"model","outputs":[{"type":"text","text":"Hello."}],"usage":{"total_input_tokens":3,"total_output_tokens":1,"total_tokens":4}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"code":404,"message":"no such method: %s","status":"NOT_FOUND"}}`, r.URL.Path)
		}
	})
}

// goldenLive plays the Live API's side of one session: each client
// message gets one fixed binary answer, and the client's close is echoed.
func goldenLive(t *testing.T, w http.ResponseWriter, r *http.Request) {
	c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		t.Errorf("upstream upgrade: %v", err)
		return
	}
	defer c.Close()
	answers := []string{
		`{"setupComplete":{}}`,
		`{"toolCall":{"functionCalls":[{"id":"call-1","name":"get_weather","args":{"city":"Paris"}}]}}`,
		`{"serverContent":{"modelTurn":{"parts":[{"text":"It is 18°C in Paris."}]},"turnComplete":true},"usageMetadata":{"promptTokenCount":30,"responseTokenCount":7,"totalTokenCount":37}}`,
	}
	for _, a := range answers {
		if _, _, err := c.ReadMessage(); err != nil {
			t.Errorf("upstream Live read: %v", err)
			return
		}
		if err := c.WriteMessage(websocket.BinaryMessage, []byte(a)); err != nil {
			t.Errorf("upstream Live write: %v", err)
			return
		}
	}
	c.ReadMessage() // the client's close, which gorilla echoes
}

// goldenTool is the tool's own API, on the host tools.example.test.
func goldenTool(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"city":%q,"temp_c":18,"sky":"sunny"}`, r.URL.Query().Get("city"))
}

// readCassettes reads every file under dir by its slash path, timings
// written as 1.
func readCassettes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = stable(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no cassette in %s", dir)
	}
	return out
}

// firstDifference shows the first line where got leaves want.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  golden: %q\n  now:    %q", i+1, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}
