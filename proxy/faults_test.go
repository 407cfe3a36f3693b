package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/livescenario"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// weatherScript is one turn: a tool call, then the answer in two parts
// (two SSE events when streamed).
const weatherScript = `
turns:
  - user: What is the weather in Paris?
    model:
      - call: get_weather
        args: {city: Paris}
      - parts:
          - text: "It is 18 degrees"
          - text: " and sunny in Paris."
  - user: Thanks
    model:
      - text: You are welcome.
`

// recordFromFake records the weather turn from the scripted fake through a
// recording proxy, streamed or not, and returns the cassette folder.
func recordFromFake(t *testing.T, stream bool) string {
	t.Helper()
	script, err := fake.ParseScript("weather.yaml", []byte(weatherScript))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if got, err := askWeather(context.Background(), rec.URL, stream, 0, 0); err != nil || got != "It is 18 degrees and sunny in Paris." {
		t.Fatalf("recording from the fake: %q, %v", got, err)
	}
	rec.stop(t)
	return dir
}

// askWeather is an agent on the official Go client: it asks, runs the
// tool the model calls, and returns the model's final text. retries is
// the client's retry setting (0: off); timeout, when set, bounds each call.
func askWeather(ctx context.Context, base string, stream bool, retries int, timeout time.Duration) (string, error) {
	opts := genai.HTTPOptions{BaseURL: base}
	if retries > 0 {
		attempts, delay, jitter := int32(retries+1), 0.01, 0.0
		opts.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts, InitialDelay: &delay, Jitter: &jitter}
	}
	if timeout > 0 {
		opts.Timeout = &timeout
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPOptions: opts})
	if err != nil {
		return "", err
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "get_weather", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}}}}}}
	history := []*genai.Content{genai.NewContentFromText("What is the weather in Paris?", genai.RoleUser)}
	for range 3 {
		resp, err := generate(ctx, client, stream, history, config)
		if err != nil {
			return "", err
		}
		if len(resp.Candidates) == 0 {
			return "", errors.New("no candidates")
		}
		c := resp.Candidates[0]
		if c.Content == nil || len(c.Content.Parts) == 0 {
			return "", fmt.Errorf("no content, finish reason %s", c.FinishReason)
		}
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			return resp.Text(), nil
		}
		history = append(history, c.Content, genai.NewContentFromFunctionResponse(calls[0].Name, map[string]any{"temp_c": 18}, genai.RoleUser))
	}
	return "", errors.New("no answer after 3 calls")
}

// generate makes one call; a stream's parts are gathered into one answer.
func generate(ctx context.Context, client *genai.Client, stream bool, history []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	if !stream {
		return client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
	}
	var all *genai.GenerateContentResponse
	for chunk, err := range client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", history, config) {
		if err != nil {
			return nil, err
		}
		if all == nil || len(all.Candidates) == 0 || all.Candidates[0].Content == nil {
			all = chunk
			continue
		}
		if len(chunk.Candidates) > 0 && chunk.Candidates[0].Content != nil {
			all.Candidates[0].Content.Parts = append(all.Candidates[0].Content.Parts, chunk.Candidates[0].Content.Parts...)
			all.Candidates[0].FinishReason = chunk.Candidates[0].FinishReason
		}
	}
	if all == nil {
		return nil, errors.New("empty stream")
	}
	return all, nil
}

// TestFaultsWithTheGoClient injects each fault at the first model call and
// shows what the official Go client makes of it, with its retry setting
// off and on: a fault consumes nothing, so a client that retries gets the
// recording and the run passes; one that gives up leaves recordings
// unused and fails the strict run.
func TestFaultsWithTheGoClient(t *testing.T) {
	plain, streamed := recordFromFake(t, false), recordFromFake(t, true)
	const want = "It is 18 degrees and sunny in Paris."
	for _, tc := range []struct {
		fault   string
		stream  bool
		timeout time.Duration
		// failure is part of the error the client gives without retries;
		// "" means it gets no error (the fault is a 200 the client takes).
		failure string
		// retried: with retries on, the client gets the recording.
		retried bool
	}{
		{fault: "429", failure: "Error 429, Message: Resource has been exhausted (e.g. check quota)., Status: RESOURCE_EXHAUSTED, Details: [map[@type:type.googleapis.com/google.rpc.RetryInfo retryDelay:1s]]", retried: true},
		{fault: "500", failure: "Error 500, Message: An internal error has occurred. Please retry., Status: INTERNAL", retried: true},
		{fault: "503", failure: "Error 503, Message: The model is overloaded. Please try again later., Status: UNAVAILABLE", retried: true},
		{fault: "reset", failure: "EOF", retried: true},
		{fault: "reset after 1 events", stream: true, failure: "unexpected EOF"},
		// The Go client's HTTPOptions.Timeout bounds the call with its
		// retries: a delay past it fails with retries on too.
		{fault: "delay 3s", timeout: 300 * time.Millisecond, failure: "context deadline exceeded"},
		{fault: "safety", failure: "no content, finish reason SAFETY"},
		{fault: "malformed-call", failure: "no content, finish reason MALFORMED_FUNCTION_CALL"},
		{fault: "empty", failure: "no candidates"},
		{fault: "truncated-json", failure: "unexpected end of JSON input"},
		{fault: "truncated-json", stream: true, failure: "unexpected end of JSON input"},
	} {
		dir := plain
		if tc.stream {
			dir = streamed
		}
		t.Run(fmt.Sprintf("%s stream=%v", tc.fault, tc.stream), func(t *testing.T) {
			spec := "call 1: " + tc.fault
			for _, retries := range []int{0, 1} {
				rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Faults: []string{spec}})
				got, err := askWeather(context.Background(), rep.URL, tc.stream, retries, tc.timeout)
				rep.stop(t)
				recovers := retries > 0 && tc.retried
				if recovers {
					if err != nil || got != want {
						t.Errorf("retries on: got %q, %v; want the recorded answer", got, err)
					}
				} else if err == nil || !strings.Contains(err.Error(), tc.failure) {
					t.Errorf("retries %d: got %q, error %v; want an error containing %q", retries, got, err, tc.failure)
				}
				report := rep.Report()
				if len(report.Faults) != 1 || !report.Faults[0].Injected || report.Faults[0].Call != 1 || report.Faults[0].Recovered != recovers {
					t.Errorf("retries %d: report faults %+v, want call 1 injected, recovered %v", retries, report.Faults, recovers)
				}
				if failed := rep.Failure() != nil; failed == recovers {
					t.Errorf("retries %d: run failed = %v (%v), want %v: %+v", retries, failed, rep.Failure(), !recovers, rep.Stats())
				}
				summary := summaryText(proxy.Summary(report, rep.Stats(), ""))
				if !strings.Contains(summary, fmt.Sprintf("fault %q injected at POST /v1beta/models/gemini-2.5-flash:", spec)) {
					t.Errorf("summary does not list the fault:\n%s", summary)
				}
			}
		})
	}
}

// TestFaultPlaces: a fault at an invocation's step, at random calls with
// a seed (the same calls every run), one no request reaches, and a delay
// the client waits out.
func TestFaultPlaces(t *testing.T) {
	dir := recordFromFake(t, false)
	run := func(retries int, faults ...string) (string, proxy.Report, error) {
		rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Faults: faults})
		got, err := askWeather(context.Background(), rep.URL, false, retries, 0)
		rep.stop(t)
		return got, rep.Report(), err
	}

	_, report, err := run(0, "invocation 1 step 1: 503")
	if err == nil || !strings.Contains(err.Error(), "Error 503") {
		t.Errorf("invocation 1 step 1: 503: error %v, want the 503 at the second call", err)
	}
	if f := report.Faults; len(f) != 1 || f[0].Call != 2 || f[0].Step == nil || *f[0].Step != 1 || f[0].Invocation != 1 {
		t.Errorf("report faults %+v, want the second call, invocation 1 step 1", f)
	}

	_, first, _ := run(3, "every call 50% seed 7: 503")
	_, again, _ := run(3, "every call 50% seed 7: 503")
	calls := func(r proxy.Report) (out []int) {
		for _, f := range r.Faults {
			out = append(out, f.Call)
		}
		return out
	}
	if fmt.Sprint(calls(first)) != fmt.Sprint(calls(again)) || len(first.Faults) == 0 {
		t.Errorf("every call 50%% seed 7 hit calls %v, then %v; want the same, and some", calls(first), calls(again))
	}

	got, report, err := run(0, "call 9: 429", "call 1: delay 50ms")
	if err != nil || got != "It is 18 degrees and sunny in Paris." {
		t.Errorf("a delay the client waits out: %q, %v", got, err)
	}
	raw, _ := json.Marshal(report)
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err := reportSchema(t).Validate(doc); err != nil {
		t.Errorf("a report with faults does not match report.schema.json: %v\n%s", err, raw)
	}
	summary := summaryText(proxy.Summary(report, proxy.Stats{}, ""))
	for _, want := range []string{`fault "call 9: 429": never injected`, `fault "call 1: delay 50ms" injected at POST`, "recovered"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}

	if _, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Faults: []string{"call one: 429"}}); err == nil || !strings.Contains(err.Error(), `call "one" is not a number from 1`) {
		t.Errorf("a bad fault spec: %v", err)
	}
}

// TestFaultsThroughTheControlAPI sets faults per test with a JSON PUT.
func TestFaultsThroughTheControlAPI(t *testing.T) {
	dir := recordFromFake(t, false)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, AllowRepeats: true}) // two tests in one run
	put := func(contentType, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPut, rep.URL+proxyopt.ControlFaults, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := put("text/plain", `{"faults": ["call 1: 429"]}`); code != http.StatusUnsupportedMediaType ||
		!strings.Contains(body, `"status": "INVALID_ARGUMENT"`) || !strings.Contains(body, "application/json") {
		t.Errorf("PUT as text/plain: %d %s, want 415 with status INVALID_ARGUMENT naming the type", code, body)
	}
	if code, body := put("application/json", `{"faults": ["call 1: 42"]}`); code != http.StatusBadRequest || !strings.Contains(body, "status 42 is not an error status") {
		t.Errorf("PUT a bad spec: %d %s, want 400 naming it", code, body)
	}
	if code, body := put("application/json", `{"faults": "call 1: 429"}`); code != http.StatusBadRequest {
		t.Errorf("PUT a string, not a list: %d %s, want 400", code, body)
	}
	if code, body := put("application/json", `{"faults": ["call 2: 503"]}`); code != http.StatusOK || !strings.Contains(body, `"call 2: 503"`) {
		t.Fatalf("PUT faults: %d %s", code, body)
	}
	if _, err := askWeather(context.Background(), rep.URL, false, 0, 0); err == nil || !strings.Contains(err.Error(), "Error 503") {
		t.Errorf("after PUT call 2: 503, the client got %v", err)
	}
	// The next test's faults: counting starts again, and none is armed.
	if code, body := put("application/json", `{"faults": []}`); code != http.StatusOK {
		t.Fatalf("PUT no faults: %d %s", code, body)
	}
	if got, err := askWeather(context.Background(), rep.URL, false, 0, 0); err != nil {
		t.Errorf("with no faults: %q, %v", got, err)
	}
	resp, err := http.Get(rep.URL + proxyopt.ControlFaults)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"faults": []`) || !strings.Contains(string(b), `"fault": "call 2: 503"`) {
		t.Errorf("GET %s: %s", proxyopt.ControlFaults, b)
	}
}

// liveScript answers livescenario's session: a tool call, the answer, and
// a second turn.
const liveScript = `
turns:
  - user: What is the weather in Paris?
    model:
      - call: get_weather
        args: {city: Paris}
      - text: It is 18°C in Paris, sunny.
  - user: Thanks
    model:
      - text: You're welcome.
`

// TestLiveFaultsWithTheGoClient: a Live connection closed with 1011 after
// two frames, and one sent goAway, as the Go client sees them; a client
// that connects again gets the recording.
func TestLiveFaultsWithTheGoClient(t *testing.T) {
	script, err := fake.ParseScript("live.yaml", []byte(liveScript))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	ctx := context.Background()
	ws := func(u string) string { return "ws" + strings.TrimPrefix(u, "http") }
	recorded, err := livescenario.Run(ctx, livescenario.Options{BaseURL: ws(rec.URL), APIKey: "test-key"})
	if err != nil {
		t.Fatalf("recording from the fake: %v (%q)", err, recorded)
	}
	rec.stop(t)
	up.Close()

	for _, tc := range []struct{ fault, failure string }{
		{"call 1: close 1011 after 2 frames", "websocket: close 1011 (internal server error): adkproxy fault: close 1011"},
		{"call 1: goAway", "unexpected server message"}, // livescenario expects no goAway; goAwayReceived shows it
	} {
		rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Faults: []string{tc.fault}})
		got, err := livescenario.Run(ctx, livescenario.Options{BaseURL: ws(rep.URL), APIKey: "test-key"})
		if err == nil || !strings.Contains(err.Error(), tc.failure) {
			t.Errorf("%s: got %q, %v; want an error containing %q", tc.fault, got, err, tc.failure)
		}
		again, err := livescenario.Run(ctx, livescenario.Options{BaseURL: ws(rep.URL), APIKey: "test-key"})
		if err != nil || fmt.Sprint(again) != fmt.Sprint(recorded) {
			t.Errorf("%s: connecting again got %q, %v; want the recording %q", tc.fault, again, err, recorded)
		}
		rep.stop(t)
		if f := rep.Report().Faults; len(f) != 1 || !f[0].Injected || !f[0].Recovered {
			t.Errorf("%s: report faults %+v, want injected and recovered", tc.fault, f)
		}
		if rep.Failure() != nil {
			t.Errorf("%s: the run failed: %v", tc.fault, rep.Failure())
		}
	}
	if msg := goAwayReceived(t, ws, dir); msg == nil || msg.GoAway == nil {
		t.Errorf("the client did not receive goAway: %+v", msg)
	}
}

// goAwayReceived connects with goAway injected after setupComplete and
// returns the second message the Go client receives.
func goAwayReceived(t *testing.T, ws func(string) string, dir string) *genai.LiveServerMessage {
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Lenient: true, Faults: []string{"call 1: goAway"}})
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: ws(rep.URL), APIVersion: "v1beta"}})
	if err != nil {
		t.Fatal(err)
	}
	session, err := client.Live.Connect(ctx, livescenario.Model, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	for range 2 {
		msg, err := session.Receive()
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		if msg.SetupComplete == nil {
			return msg
		}
	}
	return nil
}

// TestToolFault: a tool request through the forward proxy gets the fault
// named by its host and path prefix; the retry gets the recording; a fault
// for another path never fires.
func TestToolFault(t *testing.T) {
	_, cfg, client := recordWeather(t)
	cfg.Faults = []string{"tool weather.example.test/v1: 503", "tool weather.example.test/v2: reset"}
	rep, hs := serveForward(t, cfg)
	client.Transport.(*http.Transport).Proxy = http.ProxyURL(mustURL(t, hs.URL))
	const url = "https://weather.example.test/v1/current?city=Paris&units=metric"
	code, body := toolGet(t, client, url, nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"status": "UNAVAILABLE"`) {
		t.Errorf("faulted tool call: %d %s", code, body)
	}
	if code, body = toolGet(t, client, url, nil); code != http.StatusOK || !strings.Contains(body, `"city":"Paris"`) {
		t.Errorf("the retry: %d %s, want the recording", code, body)
	}
	hs.Close()
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	f := rep.Report().Faults
	if len(f) != 2 || !f[0].Injected || !f[0].Recovered || f[0].Host != "weather.example.test" || f[0].Path != "/v1/current" || f[1].Injected {
		t.Errorf("report faults %+v, want the /v1 fault injected and recovered, the /v2 one never", f)
	}
	if rep.Failure() != nil {
		t.Errorf("the run failed: %v", rep.Failure())
	}
}

// TestLiveUpgradeFault: a status fault refuses a Live connection's
// upgrade; the Go client's Connect fails, and connecting again works.
func TestLiveUpgradeFault(t *testing.T) {
	script, err := fake.ParseScript("live.yaml", []byte(liveScript))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	dir := testutil.OutDir(t)
	ws := func(u string) string { return "ws" + strings.TrimPrefix(u, "http") }
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	if _, err := livescenario.Run(context.Background(), livescenario.Options{BaseURL: ws(rec.URL), APIKey: "k"}); err != nil {
		t.Fatal(err)
	}
	rec.stop(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Faults: []string{"call 1: 503"}})
	_, err = livescenario.Run(context.Background(), livescenario.Options{BaseURL: ws(rep.URL), APIKey: "k"})
	if err == nil || !strings.Contains(err.Error(), "bad handshake") {
		t.Errorf("a 503 at the upgrade: %v", err)
	}
	if _, err := livescenario.Run(context.Background(), livescenario.Options{BaseURL: ws(rep.URL), APIKey: "k"}); err != nil {
		t.Errorf("connecting again: %v", err)
	}
	rep.stop(t)
	if f := rep.Report().Faults; len(f) != 1 || !f[0].Recovered {
		t.Errorf("report faults %+v", f)
	}
}
