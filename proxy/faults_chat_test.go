package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// chatAsk posts the weather question as a chat completion to base and
// returns the status and as much of the body as came; err is the read's.
func chatAsk(t *testing.T, base string, stream bool) (int, string, error) {
	t.Helper()
	body := `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"What is the weather in Paris?"}],"stream":` + map[bool]string{false: "false", true: "true"}[stream] + `}`
	resp, err := http.Post(base+"/v1beta/openai/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestChatFaultsInReplay: replay --fault on a recorded chat completion
// answers each kind in the OpenAI-compatible endpoint's shapes (Gemini's
// error array, finish_reason content_filter and malformed_function_call,
// no choices, cut JSON and streams, a reset), reports it injected, and the
// client's retry gets the recording.
func TestChatFaultsInReplay(t *testing.T) {
	script, err := fake.ParseScript("weather.yaml", []byte("turns:\n  - model:\n      - text: It is sunny in Paris.\n"))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	dirs := map[bool]string{}
	for _, stream := range []bool{false, true} {
		dirs[stream] = testutil.OutDir(t) + map[bool]string{false: "/json", true: "/sse"}[stream]
		rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dirs[stream], Upstream: mustURL(t, up.URL)})
		if code, b, err := chatAsk(t, rec.URL, stream); code != 200 || err != nil || !strings.Contains(b, "It is sunny in Paris.") {
			t.Fatalf("recording stream=%v: %d %v %s", stream, code, err, b)
		}
		rec.stop(t)
	}
	for _, tc := range []struct {
		fault  string
		stream bool
		check  func(code int, body string, err error) bool
	}{
		{"429", false, func(code int, b string, _ error) bool {
			var e []struct{ Error struct{ Status string } }
			return code == 429 && json.Unmarshal([]byte(b), &e) == nil && len(e) == 1 && e[0].Error.Status == "RESOURCE_EXHAUSTED"
		}},
		{"503", true, func(code int, b string, _ error) bool { return code == 503 && strings.HasPrefix(b, "[") }},
		{"safety", false, func(code int, b string, _ error) bool {
			return code == 200 && strings.Contains(b, `"finish_reason":"content_filter"`) && strings.Contains(b, `"model":"gemini-2.5-flash"`)
		}},
		{"safety", true, func(code int, b string, _ error) bool {
			return code == 200 && strings.Contains(b, `"object":"chat.completion.chunk"`) && strings.Contains(b, `"finish_reason":"content_filter"`) && strings.HasSuffix(b, "data: [DONE]\n\n")
		}},
		{"malformed-call", false, func(code int, b string, _ error) bool {
			return code == 200 && strings.Contains(b, `"finish_reason":"malformed_function_call"`)
		}},
		{"empty", true, func(code int, b string, _ error) bool { return code == 200 && strings.Contains(b, `"choices":[]`) }},
		{"truncated-json", false, func(code int, b string, _ error) bool {
			return code == 200 && strings.HasPrefix(b, "{") && !json.Valid([]byte(b))
		}},
		{"truncated-json", true, func(code int, b string, _ error) bool {
			last := b[strings.LastIndex(b, "data: ")+len("data: "):]
			return code == 200 && !strings.Contains(b, "[DONE]") && strings.HasPrefix(last, "{") && !json.Valid([]byte(last))
		}},
		{"reset", false, func(_ int, _ string, err error) bool { return err != nil }},
		{"reset after 1 events", true, func(_ int, b string, err error) bool {
			return err != nil && strings.Contains(b, "sunny") && !strings.Contains(b, "[DONE]")
		}},
		// A delay lets the request through: it gets the recording itself.
		{"delay 10ms", true, func(code int, b string, err error) bool {
			return code == 200 && err == nil && strings.Contains(b, "sunny") && strings.HasSuffix(b, "data: [DONE]\n\n")
		}},
	} {
		rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dirs[tc.stream], Faults: []string{"call 1: " + tc.fault}})
		code, b, err := chatAsk(t, rep.URL, tc.stream)
		if !tc.check(code, b, err) {
			t.Errorf("%s stream=%v: %d %v %q", tc.fault, tc.stream, code, err, b)
		}
		if !strings.HasPrefix(tc.fault, "delay") { // a delay's request got the recording: no retry is left
			if code, b, err := chatAsk(t, rep.URL, tc.stream); code != 200 || err != nil || !strings.Contains(b, "It is sunny in Paris.") {
				t.Errorf("%s stream=%v: the retry got %d %v %s, want the recording", tc.fault, tc.stream, code, err, b)
			}
		}
		rep.stop(t)
		if f := rep.Report().Faults; len(f) != 1 || !f[0].Injected || !f[0].Recovered || f[0].Path != "/v1beta/openai/chat/completions" {
			t.Errorf("%s stream=%v: report faults %+v", tc.fault, tc.stream, f)
		}
	}
}
