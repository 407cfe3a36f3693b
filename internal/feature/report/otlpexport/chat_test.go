package otlpexport_test

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

const twinScript = `
turns:
  - user: What is the weather in Paris?
    model:
      - call: get_weather
        args: {city: Paris}
      - text: It is sunny in Paris.
`

func stringValue(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

// recordTwin records the weather conversation from the fake through the
// proxy, on Gemini's generateContent or, with chat, as chat completions.
func recordTwin(t *testing.T, chat bool) string {
	t.Helper()
	script, err := fake.ParseScript("twin.yaml", []byte(twinScript))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	defer up.Close()
	dir := testutil.OutDir(t) + map[bool]string{false: "/gemini", true: "/chat"}[chat]
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustParse(t, up.URL)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	const user, inst = "What is the weather in Paris?", "You answer weather questions with get_weather."
	params := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}
	if chat {
		messages := []any{map[string]any{"role": "system", "content": inst}, map[string]any{"role": "user", "content": user}}
		body := map[string]any{"model": "gemini-2.5-flash", "temperature": 0.2, "top_p": 0.9, "max_tokens": 256,
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather", "description": "Current weather in a city", "parameters": params}}}}
		body["messages"] = messages
		answer := modelCall(t, hs.URL+"/v1beta/openai/chat/completions", body)
		id := regexp.MustCompile(`"id": "(call_[^"]+)"`).FindStringSubmatch(answer)
		if id == nil {
			t.Fatalf("no tool call: %s", answer)
		}
		body["messages"] = append(messages,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id[1], "type": "function",
				"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id[1], "content": `{"sky":"sunny"}`})
		modelCall(t, hs.URL+"/v1beta/openai/chat/completions", body)
	} else {
		contents := []any{text("user", user)}
		body := map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": inst}}},
			"generationConfig": map[string]any{"temperature": 0.2, "topP": 0.9, "maxOutputTokens": 256},
			"tools":            []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "get_weather", "description": "Current weather in a city", "parameters": params}}}}}
		body["contents"] = contents
		modelCall(t, hs.URL+"/v1beta/models/gemini-2.5-flash:generateContent", body)
		body["contents"] = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "get_weather", "args": map[string]any{"city": "Paris"}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "get_weather", "response": map[string]any{"sky": "sunny"}}}}})
		modelCall(t, hs.URL+"/v1beta/models/gemini-2.5-flash:generateContent", body)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestChatExportsAsItsGeminiTwin: one conversation recorded on
// generateContent and as chat completions exports the same spans with the
// same attributes (llm_request and llm_response in Gemini's shape), but
// for the chat completion's call ids, which its wire carries and Gemini's
// does not.
func TestChatExportsAsItsGeminiTwin(t *testing.T) {
	start := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	_, gemini, _ := exportOf(t, recordTwin(t, false), start)
	_, chat, _ := exportOf(t, recordTwin(t, true), start)
	if len(gemini) != len(chat) || len(gemini) == 0 {
		t.Fatalf("%d spans from generateContent, %d from chat completions", len(gemini), len(chat))
	}
	ids := regexp.MustCompile(`"id": ?"call_[^"]*", ?`)
	for i := range gemini {
		g, c := gemini[i], chat[i]
		if g.Name != c.Name {
			t.Errorf("span %d: %q, chat %q", i, g.Name, c.Name)
			continue
		}
		want, got := map[string]string{}, map[string]string{}
		for _, kv := range g.Attributes {
			want[kv.Key] = fmt.Sprint(kv.Value)
		}
		for _, kv := range c.Attributes {
			got[kv.Key] = fmt.Sprint(kv.Value)
			if s := kv.Value.GetStringValue(); s != "" {
				got[kv.Key] = fmt.Sprint(stringValue(ids.ReplaceAllString(s, "")))
			}
		}
		// Call ids are the chat wire's own; event ids derive from the
		// recorded bytes, as trace ids do.
		for _, k := range []string{"gen_ai.tool.call.id", "gcp.vertex.agent.event_id"} {
			delete(want, k)
			delete(got, k)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("span %d %s: %s\n  generateContent: %s\n  chat:            %s", i, g.Name, k, v, got[k])
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("span %d %s: chat only: %s = %s", i, g.Name, k, v)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(chat), "execute_tool get_weather") {
		t.Error("no execute_tool span")
	}
}
