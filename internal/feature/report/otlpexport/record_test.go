// A multi-agent run recorded through the real proxy for the export tests:
// a coordinator transfers to a weather agent, whose get_weather tool calls
// a weather API through the forward proxy; a second turn in the same
// session is answered by the coordinator alone.

package otlpexport_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

const (
	coordinatorInstruction = "You route questions.\n\nYou are an agent. Your internal name is \"coordinator\".\n\n" +
		"You can transfer to these agents:\n\nAgent name: weather_agent\nAgent description: Answers weather questions.\n"
	weatherInstruction = "You answer weather questions with get_weather."
	weatherURL         = "http://weather.example.test/v1/current?city=Paris"
)

var (
	coordinatorTools = []any{map[string]any{"functionDeclarations": []any{map[string]any{
		"name": "transfer_to_agent", "description": "Transfer the question to another agent.",
		"parameters": map[string]any{"type": "OBJECT", "properties": map[string]any{"agent_name": map[string]any{"type": "STRING"}}},
	}}}}
	weatherTools = []any{map[string]any{"functionDeclarations": []any{map[string]any{
		"name": "get_weather", "description": "Current weather in a city",
		"parameters": map[string]any{"type": "OBJECT", "properties": map[string]any{"city": map[string]any{"type": "STRING"}}},
	}}}}
)

func text(role, s string) map[string]any {
	return map[string]any{"role": role, "parts": []any{map[string]any{"text": s}}}
}

func instruction(s string) map[string]any {
	return map[string]any{"role": "user", "parts": []any{map[string]any{"text": s}}}
}

// recordRun records the run into a fresh folder and returns it.
func recordRun(t *testing.T) string {
	t.Helper()
	dir := testutil.OutDir(t)
	gemini := httptest.NewServer(&fakegemini.Handler{})
	t.Cleanup(gemini.Close)
	weather := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"city":%q,"temp_c":18,"sky":"clear"}`, r.URL.Query().Get("city"))
	}))
	t.Cleanup(weather.Close)
	authority, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	upstream, _ := url.Parse(gemini.URL)
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: upstream,
		ConnectTo: []proxy.ConnectTo{{From: "weather.example.test:80", To: strings.TrimPrefix(weather.URL, "http://")}},
		Forward:   &proxy.ForwardProxy{Leaf: authority.Leaf}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	const generate = "/v1beta/models/gemini-2.5-flash:generateContent"
	const stream = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	ask := "Ask weather_agent about Paris"
	call := modelCall(t, hs.URL+generate, map[string]any{
		"contents": []any{text("user", ask)}, "systemInstruction": instruction(coordinatorInstruction), "tools": coordinatorTools,
		"generationConfig": map[string]any{"temperature": 0.2, "topP": 0.9, "maxOutputTokens": 256},
	})
	if !strings.Contains(call, `"transfer_to_agent"`) {
		t.Fatalf("the coordinator did not transfer: %s", call)
	}
	call = modelCall(t, hs.URL+generate, map[string]any{
		"contents": []any{text("user", ask)}, "systemInstruction": instruction(weatherInstruction), "tools": weatherTools,
		"labels": map[string]any{"adk_agent_name": "weather_agent"},
	})
	if !strings.Contains(call, `"get_weather"`) {
		t.Fatalf("the weather agent did not call its tool: %s", call)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustParse(t, hs.URL))}}
	resp, err := client.Get(weatherURL)
	if err != nil {
		t.Fatal(err)
	}
	result, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var weatherResult map[string]any
	if err := json.Unmarshal(result, &weatherResult); err != nil {
		t.Fatalf("tool answer %s: %v", result, err)
	}
	answer := modelCall(t, hs.URL+stream, map[string]any{
		"contents": []any{text("user", ask),
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "get_weather", "args": map[string]any{"city": "Paris"}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "get_weather", "response": weatherResult}}}}},
		"systemInstruction": instruction(weatherInstruction), "tools": weatherTools,
		"labels": map[string]any{"adk_agent_name": "weather_agent"},
	})
	if !strings.Contains(answer, "Paris") {
		t.Fatalf("the weather agent did not answer: %s", answer)
	}
	modelCall(t, hs.URL+generate, map[string]any{
		"contents": []any{text("user", ask), text("user", "For context: [weather_agent] said: It is 18°C in Paris, clear."),
			text("user", "Thanks, that is all")},
		"systemInstruction": instruction(coordinatorInstruction), "tools": coordinatorTools,
	})
	hs.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func modelCall(t *testing.T, u string, body map[string]any) string {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(string(data)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Goog-Api-Key", testutil.SecretAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", u, resp.StatusCode, out)
	}
	return string(out)
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
