package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/livescenario"
)

func serve(t *testing.T, script string) string {
	t.Helper()
	s, err := fake.ParseScript("script.yaml", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fake.New(s))
	t.Cleanup(srv.Close)
	return srv.URL
}

func client(t *testing.T, base string, retries int) *genai.Client {
	t.Helper()
	opts := genai.HTTPOptions{BaseURL: base}
	if retries > 0 {
		attempts, delay, jitter := int32(retries+1), 0.01, 0.0
		opts.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts, InitialDelay: &delay, Jitter: &jitter}
	}
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "any", Backend: genai.BackendGeminiAPI, HTTPOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const issueScript = `
turns:
  - user: What is the weather in Paris right now?   # optional; checked when given
    model:
      - call: get_weather
        args: {city: Paris}
      - text: It is 18 degrees and sunny in Paris today.
  - user: Thanks! Now tell me a joke.
    model:
      - text: Why did the proxy cross the road? To replay the other side.
`

// TestScriptedConversation plays the issue's script with the Go client: a
// function call, its answer, the next turn, usage filled in, and a call
// beyond the script refused naming the turn.
func TestScriptedConversation(t *testing.T) {
	c := client(t, serve(t, issueScript), 0)
	ctx := context.Background()
	history := []*genai.Content{genai.NewContentFromText("What is the weather in Paris right now?", genai.RoleUser)}
	resp, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", history, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.FunctionCalls()
	if len(calls) != 1 || calls[0].Name != "get_weather" || calls[0].Args["city"] != "Paris" {
		t.Fatalf("first call: %+v", calls)
	}
	if u := resp.UsageMetadata; u == nil || u.PromptTokenCount != 8 || u.TotalTokenCount != 9 {
		t.Errorf("usage %+v, want 8 prompt words and 9 in all", u)
	}
	history = append(history, resp.Candidates[0].Content, genai.NewContentFromFunctionResponse("get_weather", map[string]any{"temp_c": 18}, genai.RoleUser))
	resp, err = c.Models.GenerateContent(ctx, "gemini-2.5-flash", history, nil)
	if err != nil || resp.Text() != "It is 18 degrees and sunny in Paris today." || resp.Candidates[0].FinishReason != genai.FinishReasonStop {
		t.Fatalf("second call: %v, %v", resp, err)
	}
	history = append(history, resp.Candidates[0].Content, genai.NewContentFromText("Thanks! Now tell me a joke.", genai.RoleUser))
	resp, err = c.Models.GenerateContent(ctx, "gemini-2.5-flash", history, nil)
	if err != nil || !strings.HasPrefix(resp.Text(), "Why did the proxy") {
		t.Fatalf("second turn: %v, %v", resp, err)
	}
	history = append(history, resp.Candidates[0].Content, genai.NewContentFromText("Another one", genai.RoleUser))
	_, err = c.Models.GenerateContent(ctx, "gemini-2.5-flash", history, nil)
	if err == nil || !strings.Contains(err.Error(), `the script script.yaml has 2 turn(s); session 1's model call is in turn 3 (user: "Another one")`) {
		t.Errorf("a third turn: %v", err)
	}

	// A script whose turn ends before the agent does.
	c = client(t, serve(t, "turns:\n  - model:\n      - call: get_weather\n"), 0)
	history = history[:1]
	resp, err = c.Models.GenerateContent(ctx, "gemini-2.5-flash", history, nil)
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, resp.Candidates[0].Content, genai.NewContentFromFunctionResponse("get_weather", map[string]any{"temp_c": 18}, genai.RoleUser))
	_, err = c.Models.GenerateContent(ctx, "gemini-2.5-flash", history, nil)
	if err == nil || !strings.Contains(err.Error(), `script.yaml:2: turn 1 (user: "What is the weather in Paris right now?") has 1 model item(s); session 1 made model call 2 of that turn: add an item to turns[0].model`) {
		t.Errorf("past the turn's items: %v", err)
	}
}

// TestSessionsAndUserCheck: two conversations each get the script from
// its start; a user text the turn does not expect is refused.
func TestSessionsAndUserCheck(t *testing.T) {
	c := client(t, serve(t, issueScript), 0)
	ctx := context.Background()
	for i := range 2 {
		resp, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("What is the weather in Paris right now?"), nil)
		if err != nil || len(resp.FunctionCalls()) != 1 {
			t.Fatalf("session %d: %v, %v", i+1, resp, err)
		}
	}
	_, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("What about Rome?"), nil)
	if err == nil || !strings.Contains(err.Error(), `script.yaml:3: turn 1 expects the user to say "What is the weather in Paris right now?"; session 3's call says "What about Rome?"`) {
		t.Errorf("an unexpected user text: %v", err)
	}
}

// TestStreamOneEventPerPart: each part is an SSE event; the last carries
// the finish reason.
func TestStreamOneEventPerPart(t *testing.T) {
	c := client(t, serve(t, "turns:\n  - model:\n      - parts: [{text: 'One, '}, {text: 'two.'}, {call: done}]\n"), 0)
	var got []string
	for chunk, err := range c.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", genai.Text("Count"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		cand := chunk.Candidates[0]
		got = append(got, fmt.Sprintf("%q %s %d", chunk.Text(), cand.FinishReason, chunk.UsageMetadata.CandidatesTokenCount))
	}
	if want := `["One, "  1" "two."  2" "" STOP 3"]`; fmt.Sprintf("%q", got) != fmt.Sprintf("%q", []string{`"One, "  1`, `"two."  2`, `"" STOP 3`}) {
		t.Errorf("chunks %q, want %s", got, want)
	}
}

// TestCountTokens counts the words of the contents.
func TestCountTokens(t *testing.T) {
	c := client(t, serve(t, issueScript), 0)
	resp, err := c.Models.CountTokens(context.Background(), "gemini-2.5-flash", genai.Text("three little words"), nil)
	if err != nil || resp.TotalTokens != 3 {
		t.Errorf("countTokens: %+v, %v", resp, err)
	}
}

// TestErrorsAndFaultsAsItems: an error item and a fault item answer one
// call each; a client that retries gets the item after them.
func TestErrorsAndFaultsAsItems(t *testing.T) {
	script := `
turns:
  - model:
      - error: {code: 503, message: overloaded}
      - fault: 429
      - fault: reset
      - text: finally
`
	ctx := context.Background()
	_, err := client(t, serve(t, script), 0).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil)
	if err == nil || !strings.Contains(err.Error(), "Error 503, Message: overloaded, Status: UNAVAILABLE") {
		t.Errorf("without retries: %v", err)
	}
	resp, err := client(t, serve(t, script), 3).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil)
	if err != nil || resp.Text() != "finally" {
		t.Errorf("with 3 retries: %v, %v", resp, err)
	}
	for fault, want := range map[string]string{"safety": "SAFETY", "malformed-call": "MALFORMED_FUNCTION_CALL"} {
		resp, err := client(t, serve(t, "turns:\n  - model:\n      - fault: "+fault+"\n"), 0).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil)
		if err != nil || string(resp.Candidates[0].FinishReason) != want || resp.Text() != "" {
			t.Errorf("fault %s: %+v, %v", fault, resp, err)
		}
	}
	_, err = client(t, serve(t, "turns:\n  - model:\n      - fault: truncated-json\n      - text: a whole answer\n"), 0).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil)
	if err == nil || !strings.Contains(err.Error(), "unexpected end of JSON input") {
		t.Errorf("truncated-json: %v", err)
	}
}

// liveScript answers livescenario's session.
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

// TestLive plays a Live session with the Go client, and a scripted close.
func TestLive(t *testing.T) {
	ws := "ws" + strings.TrimPrefix(serve(t, liveScript), "http")
	got, err := livescenario.Run(context.Background(), livescenario.Options{BaseURL: ws, APIKey: "any"})
	want := `[toolCall get_weather {"city":"Paris"} text It is 18°C in Paris, sunny. usage {"promptTokenCount":6,"responseTokenCount":6,"totalTokenCount":12} text You're welcome. usage {"promptTokenCount":1,"responseTokenCount":2,"totalTokenCount":3}]`
	if err != nil || fmt.Sprint(got) != want {
		t.Errorf("Live session: %v, %v\nwant %s", got, err, want)
	}
	ws = "ws" + strings.TrimPrefix(serve(t, strings.Replace(liveScript, "      - text: It is", "      - fault: close 1011 after 1 frames\n      - text: It is", 1)), "http")
	_, err = livescenario.Run(context.Background(), livescenario.Options{BaseURL: ws, APIKey: "any"})
	if err == nil || !strings.Contains(err.Error(), "close 1011") {
		t.Errorf("a scripted close 1011: %v", err)
	}
}

// TestCuttingFaultsTakeTheNextAnswer: reset after events and delay act on
// the turn's next answer; the reset leaves it for the retry, the delay
// gives it once waited out.
func TestCuttingFaultsTakeTheNextAnswer(t *testing.T) {
	ctx := context.Background()
	script := "turns:\n  - model:\n      - fault: reset after 1 events\n      - parts: [{text: 'One, '}, {text: 'two.'}]\n"
	var got []string
	var streamErr error
	for chunk, err := range client(t, serve(t, script), 0).Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text("Count"), nil) {
		if err != nil {
			streamErr = err
			break
		}
		got = append(got, chunk.Text())
	}
	if fmt.Sprint(got) != "[One, ]" || streamErr == nil || !strings.Contains(streamErr.Error(), "unexpected EOF") {
		t.Errorf("reset after 1 events: chunks %q, error %v", got, streamErr)
	}

	base := serve(t, "turns:\n  - model:\n      - fault: delay 2s\n      - text: late\n")
	timeout := 100 * time.Millisecond
	impatient, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "any", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: base, Timeout: &timeout}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := impatient.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil); err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("a client that does not wait 2s: %v", err)
	}
	base = serve(t, "turns:\n  - model:\n      - fault: delay 50ms\n      - text: late\n")
	if resp, err := client(t, base, 0).Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil); err != nil || resp.Text() != "late" {
		t.Errorf("a client that waits: %v, %v", resp, err)
	}
}

// TestVertexPathsAndModels: the Vertex AI client is answered on its paths,
// and the model list is served.
func TestVertexPathsAndModels(t *testing.T) {
	base := serve(t, issueScript)
	// Vertex express mode: an API key, publishers/google/models paths.
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendVertexAI, APIKey: "any", HTTPOptions: genai.HTTPOptions{BaseURL: base}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("What is the weather in Paris right now?"), nil)
	if err != nil || len(resp.FunctionCalls()) != 1 {
		t.Errorf("Vertex generateContent: %v, %v", resp, err)
	}
	m, err := client(t, base, 0).Models.Get(context.Background(), "gemini-2.5-flash", nil)
	if err != nil || m.Name != "models/gemini-2.5-flash" {
		t.Errorf("models.get: %+v, %v", m, err)
	}
}

// TestLiveBeyondTheScript: a Live turn past the script closes the
// connection with 1011 naming the connection and the turn.
func TestLiveBeyondTheScript(t *testing.T) {
	ws := "ws" + strings.TrimPrefix(serve(t, "turns:\n  - model:\n      - text: only one\n"), "http")
	_, err := livescenario.Run(context.Background(), livescenario.Options{BaseURL: ws, APIKey: "any"})
	if err == nil || !strings.Contains(err.Error(), "close 1011") || !strings.Contains(err.Error(), `Live connection 1's model call is in turn 2 (user: "Thanks")`) {
		t.Errorf("a Live call past the script: %v", err)
	}
}

// TestPathWithoutVersionNamesIt: a base URL without /v1beta (the Vercel AI
// SDK's must end in it) sends /models/...; the fake says the version
// segment is missing and what it serves instead, not "not a method".
func TestPathWithoutVersionNamesIt(t *testing.T) {
	base := serve(t, issueScript)
	for path, want := range map[string]string{
		"/models/gemini-2.5-flash:generateContent":               "has no API version segment: the fake serves /v1beta/models/gemini-2.5-flash:generateContent",
		"/models/gemini-2.5-flash:streamGenerateContent?alt=sse": "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
		"/v1beta/models/gemini-2.5-flash:frobnicate":             "is not a method the fake serves",
		"/nothing/here": "is not a method the fake serves",
	} {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(`{"contents":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), want) {
			t.Errorf("POST %s: %d %s\nwant 404 saying %q", path, resp.StatusCode, b, want)
		}
		if strings.Contains(want, "version") && strings.Contains(string(b), "not a method") {
			t.Errorf("POST %s: still says 'not a method': %s", path, b)
		}
	}
}

// TestChatCompletionsFromTheSameScript: the issue's script on the
// OpenAI-compatible endpoint: a tool call (arguments a JSON string), then
// the text once the tool message comes, streamed the second time with
// usage and [DONE]; the model list; a path lacking /v1beta/openai named.
func TestChatCompletionsFromTheSameScript(t *testing.T) {
	base := serve(t, issueScript)
	post := func(body string) (int, string) {
		resp, err := http.Post(base+"/v1beta/openai/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	user := `{"role":"user","content":"What is the weather in Paris right now?"}`
	code, b := post(`{"model":"gemini-2.5-flash","messages":[` + user + `]}`)
	if code != 200 || !strings.Contains(b, `"arguments": "{\"city\":\"Paris\"}"`) || !strings.Contains(b, `"finish_reason": "tool_calls"`) {
		t.Fatalf("first step: %d %s", code, b)
	}
	var first struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct{ ID string } `json:"tool_calls"`
			}
		}
	}
	json.Unmarshal([]byte(b), &first)
	id := first.Choices[0].Message.ToolCalls[0].ID
	code, b = post(`{"model":"gemini-2.5-flash","stream":true,"stream_options":{"include_usage":true},"messages":[` + user +
		`,{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}` +
		`,{"role":"tool","tool_call_id":"` + id + `","content":"{\"temp\":18}"}]}`)
	if code != 200 || !strings.Contains(b, `"content":"It is 18 degrees and sunny in Paris today."`) || !strings.Contains(b, `"usage":{`) || !strings.HasSuffix(b, "data: [DONE]\n\n") {
		t.Fatalf("second step: %d %s", code, b)
	}
	resp, err := http.Get(base + "/v1beta/openai/models")
	if err != nil {
		t.Fatal(err)
	}
	models, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(models), `"id": "models/gemini-2.5-flash"`) {
		t.Errorf("models: %s", models)
	}
	resp, _ = http.Post(base+"/openai/chat/completions", "application/json", strings.NewReader("{}"))
	b2, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(b2), "has no API version segment: the fake serves /v1beta/openai/chat/completions") {
		t.Errorf("no version: %d %s", resp.StatusCode, b2)
	}
}
