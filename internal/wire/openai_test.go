package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

const chatPath = "/v1beta/openai/chat/completions"

// TestOpenAIRecognise: chat completions on the Developer API's and Vertex
// AI's roots are model calls; models and embeddings are other requests of
// the dialect; a path without the version segment or root is not its.
func TestOpenAIRecognise(t *testing.T) {
	for _, c := range []struct {
		method, path string
		kind         Kind
		op, model    string
		vertex       bool
	}{
		{"POST", "/v1beta/openai/chat/completions", Model, "chat.completions", "", false},
		{"POST", "/v1/projects/p/locations/us-central1/endpoints/openapi/chat/completions", Model, "chat.completions", "", true},
		{"POST", "/v1beta1/projects/p/locations/global/endpoints/openapi/chat/completions", Model, "chat.completions", "", true},
		{"GET", "/v1beta/openai/models", Other, "models.list", "", false},
		{"GET", "/v1beta/openai/models/gemini-2.5-flash", Other, "models.get", "gemini-2.5-flash", false},
		{"POST", "/v1beta/openai/embeddings", Other, "embeddings", "", false},
		{"GET", "/v1beta/openai/chat/completions", Other, "chat.completions", "", false},
	} {
		got := Recognise(&cassettes.Request{Method: c.method, Path: c.path})
		if got.Dialect == nil || got.Dialect.Name() != "openai" || got.Kind != c.kind || got.Method != c.op || got.Model != c.model || got.Vertex != c.vertex {
			t.Errorf("%s %s: %+v", c.method, c.path, got)
		}
	}
	for _, path := range []string{"/openai/chat/completions", "/chat/completions", "/v1beta/models/gemini-2.5-flash:generateContent"} {
		if got := Recognise(&cassettes.Request{Method: "POST", Path: path}); got.Dialect != nil && got.Dialect.Name() == "openai" {
			t.Errorf("%s: read as openai", path)
		}
	}
}

// The second step of a weather agent as the openai SDK sends it: the
// history with the assistant's tool calls (arguments a JSON string) and
// one tool message per call.
const chatSecondStep = `{"model":"gemini-2.5-flash","messages":[
	{"role":"system","content":"You are a weather assistant."},
	{"role":"user","content":"Weather in Paris and Rome?"},
	{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{\"city\":\"Rome\"}"}}]},
	{"role":"tool","tool_call_id":"call_1","content":"{\"temp\":18,\"sky\":\"sunny\"}"},
	{"role":"tool","tool_call_id":"call_2","content":"14:05"}],
 "tools":[
	{"type":"function","function":{"name":"get_weather","description":"Current weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
	{"type":"function","function":{"name":"get_time","description":"Local time.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],
 "stream":false}`

// TestOpenAIRequestAsGemini: the history reads as generateContent's would.
func TestOpenAIRequestAsGemini(t *testing.T) {
	r, ok := RequestOf(&cassettes.Request{Method: "POST", Path: chatPath, Body: []byte(chatSecondStep)})
	if !ok {
		t.Fatal("not read")
	}
	want := Request{
		Model:  "gemini-2.5-flash",
		System: &Content{Parts: []Part{{Text: "You are a weather assistant."}}},
		Contents: []Content{
			{Role: "user", Parts: []Part{{Text: "Weather in Paris and Rome?"}}},
			{Role: "model", Parts: []Part{
				{FunctionCall: &ToolCall{ID: "call_1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}},
				{FunctionCall: &ToolCall{ID: "call_2", Name: "get_time", Args: map[string]any{"city": "Rome"}}}}},
			{Role: "user", Parts: []Part{
				{FunctionResponse: &ToolResult{ID: "call_1", Name: "get_weather", Response: map[string]any{"temp": 18.0, "sky": "sunny"}}},
				{FunctionResponse: &ToolResult{ID: "call_2", Name: "get_time", Response: map[string]any{"result": "14:05"}}}}},
		},
		Tools: []Declaration{
			{Name: "get_weather", Description: "Current weather for a city.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "get_time", Description: "Local time.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
	if _, ok := RequestOf(&cassettes.Request{Method: "POST", Path: chatPath, Body: []byte(`[1]`)}); ok {
		t.Error("a body that is not a chat request was read")
	}
}

// TestOpenAIStepJSON: a whole answer with tool calls, and its usage.
func TestOpenAIStepJSON(t *testing.T) {
	x := exchange(chatPath, chatSecondStep, `{"id":"x","object":"chat.completion","created":1,"model":"gemini-2.5-flash",
		"choices":[{"index":0,"message":{"role":"assistant","content":"Sunny, 18 degrees.","tool_calls":[
			{"id":"call_3","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Nice\",\"unit\":\"C\"}"}}]},
			"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":30,"completion_tokens":7,"total_tokens":37,"completion_tokens_details":{"reasoning_tokens":2}}}`)
	s := StepOf(x)
	if s.Text != "Sunny, 18 degrees." || s.FinishReason != "STOP" || s.ModelVersion != "gemini-2.5-flash" {
		t.Errorf("step %+v", s)
	}
	if want := []ToolCall{{ID: "call_3", Name: "get_weather", Args: map[string]any{"city": "Nice", "unit": "C"}}}; !reflect.DeepEqual(s.ToolCalls, want) {
		t.Errorf("calls %+v", s.ToolCalls)
	}
	if want := (&Usage{Prompt: 30, Candidates: 7, Total: 37, Thoughts: 2}); !reflect.DeepEqual(s.Usage, want) {
		t.Errorf("usage %+v", s.Usage)
	}
	if len(s.ToolResults) != 2 || s.ToolResults[0].Name != "get_weather" || s.ToolResults[1].Response["result"] != "14:05" {
		t.Errorf("results %+v", s.ToolResults)
	}
}

// TestOpenAIStepStream: SSE chunks, a tool call's arguments split over
// deltas told apart by index, a usage chunk with no choices, and [DONE].
func TestOpenAIStepStream(t *testing.T) {
	x := exchange(chatPath, `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`, "")
	x.Response.Body = nil
	x.Response.Header = map[string][]string{"Content-Type": {"text/event-stream"}}
	for _, data := range []string{
		`{"object":"chat.completion.chunk","model":"gemini-2.5-flash","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me "}}]}`,
		`{"object":"chat.completion.chunk","model":"gemini-2.5-flash","choices":[{"index":0,"delta":{"content":"check."}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
		`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
		`[DONE]`,
	} {
		x.Response.Events = append(x.Response.Events, cassettes.Event{Data: []byte("data: " + data + "\n\n")})
	}
	s := StepOf(x)
	if s.Text != "Let me check." || s.FinishReason != "STOP" || s.ModelVersion != "gemini-2.5-flash" || s.Usage == nil || s.Usage.Total != 7 {
		t.Errorf("step %+v", s)
	}
	want := []ToolCall{{ID: "c1", Name: "get_weather", Args: map[string]any{"city": "Paris"}}, {ID: "c2", Name: "get_time", Args: map[string]any{}}}
	if !reflect.DeepEqual(s.ToolCalls, want) {
		t.Errorf("calls %+v", s.ToolCalls)
	}
}

// TestOpenAIArgumentsThatAreNotJSON are kept, not dropped.
func TestOpenAIArgumentsThatAreNotJSON(t *testing.T) {
	x := exchange(chatPath, `{"messages":[]}`, `{"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{oops"}}]}}]}`)
	if got := StepOf(x).ToolCalls; len(got) != 1 || got[0].Args["arguments"] != "{oops" {
		t.Errorf("calls %+v", got)
	}
	x.Response.Status = 429
	if got := StepOf(x); len(got.ToolCalls) != 0 {
		t.Errorf("an error answer gave calls: %+v", got)
	}
}

// TestOpenAIMatchingNames: tools and tool calls by function name,
// messages by role.
func TestOpenAIMatchingNames(t *testing.T) {
	m := openai{}.Matching()
	for v, want := range map[*any]string{
		ptr(map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}): "get_weather",
		ptr(map[string]any{"role": "user", "content": "hi"}):                                       "user",
		ptr(map[string]any{"type": "text", "text": "hi"}):                                          "",
		ptr("plain"): "",
	} {
		if got := m.ElementName(*v); got != want {
			t.Errorf("%v: %q, want %q", *v, got, want)
		}
	}
	if m.Group("messages") != "contents" || m.Group("tools") != "tools" || m.Group("temperature") != "generation_config" {
		t.Error("groups")
	}
}

func ptr(v any) *any { return &v }

// TestGenerateContentBodyOfAChat: a chat request written as generateContent
// reads back as the same request.
func TestGenerateContentBodyOfAChat(t *testing.T) {
	r, _ := RequestOf(&cassettes.Request{Method: "POST", Path: chatPath, Body: []byte(chatSecondStep)})
	body := GenerateContentBody(r)
	back, ok := RequestOf(&cassettes.Request{Method: "POST", Path: generatePath, Body: body})
	back.Model = r.Model // a generateContent body names its model in the path
	if !ok || !reflect.DeepEqual(back, r) {
		t.Errorf("%s\nreads back as %+v\nwant %+v", body, back, r)
	}
}

// TestEachResponseCallOfAChat: a chat completion's tool calls, and a
// stream chunk's, are response calls as Gemini's functionCall parts are;
// a chunk that only adds to a call's arguments, and an answer of text, are
// none.
func TestEachResponseCallOfAChat(t *testing.T) {
	type call struct{ id, name, args string }
	read := func(body string) []call {
		var out []call
		EachResponseCall([]byte(body), func(id, name string, args json.RawMessage) { out = append(out, call{id, name, string(args)}) })
		return out
	}
	for _, c := range []struct {
		body string
		want []call
	}{
		{`{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},` +
			`{"id":"c2","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":"tool_calls"}]}`,
			[]call{{"c1", "get_weather", `{"city":"Paris"}`}, {"c2", "get_time", ""}}},
		{`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}`,
			[]call{{"c1", "get_weather", `{"ci`}}},
		{`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}}]}`, nil},
		{`{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"It is sunny."},"finish_reason":"stop"}]}`, nil},
		{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]}}]}`, []call{{"", "f", "{}"}}},
	} {
		if got := read(c.body); !reflect.DeepEqual(got, c.want) {
			t.Errorf("EachResponseCall(%s) = %v, want %v", c.body, got, c.want)
		}
	}
}

// TestChatErrorMessage: an error's message in OpenAI's shape, in the array
// Gemini's compatibility layer sends, and a body that is neither.
func TestChatErrorMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error": {"message": "adkproxy: not recorded", "code": 400}}`:               "adkproxy: not recorded",
		`[{"error": {"code": 429, "message": "Resource exhausted.", "status": "X"}}]`: "Resource exhausted.",
		" upstream went away\n": "upstream went away",
	} {
		if got := ChatErrorMessage([]byte(body)); got != want {
			t.Errorf("ChatErrorMessage(%q) = %q, want %q", body, got, want)
		}
	}
}

func FuzzChatErrorMessage(f *testing.F) {
	f.Add([]byte(`[{"error": {"message": "m"}}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if m := ChatErrorMessage(body); !json.Valid(body) && m != strings.TrimSpace(string(body)) {
			t.Errorf("a body that is not JSON read as %q: %q", m, body)
		}
	})
}

func FuzzEachChatCall(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		EachResponseCall(body, func(id, name string, args json.RawMessage) {
			if name == "" && !strings.Contains(string(body), "functionCall") {
				t.Errorf("a chat tool call without a name from %q", body)
			}
		})
	})
}

// TestChatAsGemini: a chat completion's settings read as generationConfig
// by Gemini's names, and its answer (streamed) as generateContent's.
func TestChatAsGemini(t *testing.T) {
	gc := ChatGenerationConfig([]byte(`{"model":"m","messages":[],"stream":true,"temperature":0.2,"top_p":0.9,"max_completion_tokens":64,` +
		`"stop":"END","response_format":{"type":"json_object"},"tool_choice":"auto"}`))
	want := map[string]any{"temperature": json.Number("0.2"), "topP": json.Number("0.9"), "maxOutputTokens": json.Number("64"),
		"stopSequences": []any{"END"}, "responseMimeType": "application/json", "tool_choice": "auto"}
	if !reflect.DeepEqual(gc, want) {
		t.Errorf("ChatGenerationConfig = %v, want %v", gc, want)
	}
	if gc := ChatGenerationConfig([]byte(`{"model":"m","messages":[]}`)); gc != nil {
		t.Errorf("a request with no settings: %v", gc)
	}
	x := &cassettes.Exchange{Request: cassettes.Request{Method: "POST", Path: chatPath, Body: []byte(`{"messages":[]}`)},
		Response: cassettes.Response{Status: 200, Events: []cassettes.Event{
			{Data: []byte(`data: {"model":"gemini-2.5-flash","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me look."}}]}` + "\n\n")},
			{Data: []byte(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n")},
			{Data: []byte(`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}` + "\n\n")},
			{Data: []byte("data: [DONE]\n\n")}}}}
	got := string(ChatAnswerAsGemini(x))
	const wantBody = `{"candidates":[{"content":{"parts":[{"text":"Let me look."},{"functionCall":{"args":{"city":"Paris"},"id":"c1","name":"get_weather"}}],"role":"model"},` +
		`"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash","usageMetadata":{"candidatesTokenCount":3,"promptTokenCount":5,"totalTokenCount":8}}`
	if got != wantBody {
		t.Errorf("ChatAnswerAsGemini =\n%s\nwant\n%s", got, wantBody)
	}
}

func FuzzChatGenerationConfig(f *testing.F) {
	f.Add([]byte(`{"stop":["a"],"top_p":1,"response_format":{"type":"json_schema"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for k := range ChatGenerationConfig(body) {
			if k == "messages" || k == "model" {
				t.Errorf("%s read as a setting from %q", k, body)
			}
		}
	})
}
