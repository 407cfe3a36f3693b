package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// chatPost sends a chat completion asking "hi" (streamed when stream) and
// returns the status, the headers and the body as far as it came; err is
// the read's error (a reset connection).
func chatPost(t *testing.T, base string, stream bool) (int, http.Header, []byte, error) {
	t.Helper()
	body := `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"hi"}]`
	if stream {
		body += `,"stream":true`
	}
	resp, err := http.Post(base+"/v1beta/openai/chat/completions", "application/json", strings.NewReader(body+"}"))
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// chatStep reads an answer as the wire reads a recorded one.
func chatStep(body []byte, stream bool) wire.Step {
	x := &cassettes.Exchange{Request: cassettes.Request{Method: "POST", Path: "/v1beta/openai/chat/completions", Body: []byte(`{"messages":[]}`)},
		Response: cassettes.Response{Status: 200, Body: body}}
	if stream {
		x.Response.Body = nil
		for _, ev := range strings.SplitAfter(string(body), "\n\n") {
			if ev != "" {
				x.Response.Events = append(x.Response.Events, cassettes.Event{Data: []byte(ev)})
			}
		}
	}
	return wire.StepOf(x)
}

// TestChatFaultsAsItems: each fault kind of a script item is answered on
// the OpenAI-compatible endpoint in that endpoint's shapes: an error as
// Gemini's compatibility layer sends it ([{"error": ...}], Retry-After on a
// 429), a blocked answer as finish_reason content_filter, a malformed call
// as malformed_function_call, an empty answer with no choices, JSON and
// streams cut, a connection reset, a delay; whole and streamed.
func TestChatFaultsAsItems(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "sse"}[stream]
		t.Run(name, func(t *testing.T) {
			one := func(item string) (int, http.Header, []byte, error) {
				return chatPost(t, serve(t, "turns:\n  - model:\n      - "+item+"\n      - text: It is sunny in Paris today.\n"), stream)
			}
			code, h, b, _ := one("fault: 429")
			var errs []struct {
				Error struct {
					Code    int
					Message string
					Status  string
				}
			}
			if code != 429 || h.Get("Retry-After") != "1" || json.Unmarshal(b, &errs) != nil || len(errs) != 1 || errs[0].Error.Status != "RESOURCE_EXHAUSTED" {
				t.Errorf("429: %d %v %s", code, h, b)
			}
			code, _, b, _ = one("error: {code: 503, message: overloaded}")
			if code != 503 || json.Unmarshal(b, &errs) != nil || errs[0].Error.Message != "overloaded" || errs[0].Error.Status != "UNAVAILABLE" {
				t.Errorf("scripted error: %d %s", code, b)
			}
			for kind, want := range map[string]string{"safety": "SAFETY", "malformed-call": "MALFORMED_FUNCTION_CALL"} {
				code, _, b, _ = one("fault: " + kind)
				if st := chatStep(b, stream); code != 200 || st.FinishReason != want || st.Text != "" {
					t.Errorf("%s: %d %s read as %+v", kind, code, b, st)
				}
			}
			code, _, b, _ = one("fault: empty")
			if st := chatStep(b, stream); code != 200 || !strings.Contains(string(b), `"choices":[]`) || st.FinishReason != "" || st.Text != "" {
				t.Errorf("empty: %d %s", code, b)
			}
			code, _, b, _ = one("fault: truncated-json")
			last := string(b)
			if stream {
				if strings.Contains(last, "[DONE]") {
					t.Errorf("truncated stream sent [DONE]: %s", b)
				}
				last = last[strings.LastIndex(last, "data: ")+len("data: "):]
			}
			if code != 200 || json.Valid([]byte(last)) || !strings.HasPrefix(last, "{") {
				t.Errorf("truncated-json: %d %q", code, b)
			}
			if _, _, _, err := one("fault: reset"); err == nil {
				t.Error("reset: the answer came whole")
			}
			if stream {
				_, _, b, err := one("fault: reset after 1 events")
				if err == nil || !strings.Contains(string(b), `"role":"assistant"`) || strings.Contains(string(b), "[DONE]") {
					t.Errorf("reset after 1 events: %v %q", err, b)
				}
			}
			code, _, b, _ = one("fault: delay 50ms")
			if st := chatStep(b, stream); code != 200 || st.Text != "It is sunny in Paris today." {
				t.Errorf("delay: %d %s", code, b)
			}
			base := serve(t, "turns:\n  - model:\n      - fault: delay 2s\n      - text: late\n")
			impatient := &http.Client{Timeout: 100 * time.Millisecond}
			if _, err := impatient.Post(base+"/v1beta/openai/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)); err == nil || !strings.Contains(err.Error(), "Timeout") {
				t.Errorf("a client that does not wait 2s: %v", err)
			}
		})
	}
}
