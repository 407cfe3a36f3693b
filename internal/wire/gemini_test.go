package wire

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func exchange(path, reqBody, respBody string) *cassettes.Exchange {
	return &cassettes.Exchange{
		Request:  cassettes.Request{Method: "POST", Path: path, Body: []byte(reqBody)},
		Response: cassettes.Response{Status: 200, Body: []byte(respBody)},
	}
}

const generatePath = "/v1beta/models/m:generateContent"

// TestStepOfOddPayloads: a body or event that is not a response object
// (null, a list, text) gives an empty step, not a crash: genai's decoder
// panicked on a bare null, which once crashed saving a cassette.
func TestStepOfOddPayloads(t *testing.T) {
	for _, body := range []string{"null", " null\n", "[]", "[null]", "\"text\"", "42", "", "{\"candidates\": null}"} {
		x := exchange(generatePath, "{}", body)
		if s := StepOf(x); s.Text != "" || len(s.ToolCalls) != 0 {
			t.Errorf("body %q: step %+v", body, s)
		}
		x.Response.Body = nil
		x.Response.Events = []cassettes.Event{{Data: []byte("data: " + body + "\r\n\r\n")}}
		StepOf(x)
	}
	withText := exchange(generatePath, "{}", `{"candidates": [{"content": {"parts": [{"text": "hi"}]}}]}`)
	if got := StepOf(withText).Text; got != "hi" {
		t.Errorf("a real response: text %q, want hi", got)
	}
}

// TestStepTextParts: the text parts of one response are joined by line
// breaks (as ADK joins a final response's parts), thoughts left out; the
// chunks of a stream are pieces of one text.
func TestStepTextParts(t *testing.T) {
	x := exchange(generatePath, "{}", `{"candidates": [{"content": {"parts": [{"text": "First."}, {"text": "hmm", "thought": true}, {"functionCall": {"name": "f"}}, {"text": "Second."}]}}]}`)
	if got := StepOf(x).Text; got != "First.\nSecond." {
		t.Errorf("parts of one response: %q, want %q", got, "First.\nSecond.")
	}
	x.Response.Body = nil
	for _, chunk := range []string{"Hel", "lo, ", "world"} {
		x.Response.Events = append(x.Response.Events, cassettes.Event{Data: []byte(`data: {"candidates": [{"content": {"parts": [{"text": "` + chunk + `"}]}}]}` + "\r\n\r\n")})
	}
	if got := StepOf(x).Text; got != "Hello, world" {
		t.Errorf("chunks of a stream: %q, want %q", got, "Hello, world")
	}
}

// TestStepReadsOnlyTheTurnAfterTheLastModelTurn: the tool results are
// those after the history's last model turn, in order; a null content
// ends the tail as a model turn would; thoughts are not the answer's text.
func TestStepReadsOnlyTheTurnAfterTheLastModelTurn(t *testing.T) {
	x := exchange(generatePath, `{"contents":[
			{"role":"user","parts":[{"functionResponse":{"name":"old","response":{"n":0}}}]},
			{"role":"model","parts":[{"functionCall":{"name":"a"}},{"functionCall":{"name":"b"}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"1","name":"a","response":{"n":1}}}]},
			{"role":"user","parts":[{"text":"and"},{"functionResponse":{"id":"2","name":"b","response":{"n":2.5}}}]}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[
			{"text":"thinking","thought":true},{"text":"one"},{"functionCall":{"id":"c","name":"f","args":{"k":[1,null]}}},{"text":"two"}]},
			"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":3,"thoughtsTokenCount":2},"modelVersion":"m-1"}`)
	s := StepOf(x)
	if len(s.ToolResults) != 2 || s.ToolResults[0].Name != "a" || s.ToolResults[1].ID != "2" || s.ToolResults[1].Response["n"] != 2.5 {
		t.Fatalf("tool results %+v", s.ToolResults)
	}
	if s.Text != "one\ntwo" || s.FinishReason != "STOP" || s.ModelVersion != "m-1" || s.Usage == nil || *s.Usage != (Usage{Prompt: 7, Candidates: 3, Thoughts: 2}) {
		t.Fatalf("answer %q %q %q %+v", s.Text, s.FinishReason, s.ModelVersion, s.Usage)
	}
	if len(s.ToolCalls) != 1 || s.ToolCalls[0].Name != "f" || s.ToolCalls[0].ID != "c" {
		t.Fatalf("tool calls %+v", s.ToolCalls)
	}
	x.Request.Body = []byte(`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"a"}}]},null,{"role":"user","parts":[{"functionResponse":{"name":"b"}}]}]}`)
	if s := StepOf(x); len(s.ToolResults) != 1 || s.ToolResults[0].Name != "b" {
		t.Fatalf("after a null content: %+v", s.ToolResults)
	}
}

// TestStepRefusesWhatGenaiRefuses: a field of the wrong type in a part of
// genai's shape that the step does not use still makes the document
// unreadable, as it did when the step was read with genai's types.
func TestStepRefusesWhatGenaiRefuses(t *testing.T) {
	for _, body := range []string{
		`{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":{"trafficType":5}}`,
		`{"candidates":[{"content":{"parts":[{"text":"x"},{"functionCall":{"name":"f","willContinue":"yes"}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":{"promptTokensDetails":[{"tokenCount":"many"}]}}`,
	} {
		if s := StepOf(exchange(generatePath, "{}", body)); s.Text != "" {
			t.Errorf("%s: read text %q", body, s.Text)
		}
	}
	x := exchange(generatePath, `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"a","parts":[{"inlineData":{"data":"not base64!"}}]}}]}]}`, "{}")
	if s := StepOf(x); len(s.ToolResults) != 0 {
		t.Errorf("a response with a bad blob: %+v", s.ToolResults)
	}
}

func TestRecognise(t *testing.T) {
	for _, c := range []struct {
		method, host, path string
		dialect            string
		kind               Kind
		op, model          string
		vertex             bool
	}{
		{"POST", "", "/v1beta/models/gemini-2.5-flash:generateContent", "gemini", Model, "generateContent", "gemini-2.5-flash", false},
		{"POST", "", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "gemini", Model, "streamGenerateContent", "gemini-2.5-flash", false},
		{"POST", "", "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent", "gemini", Model, "generateContent", "gemini-2.5-pro", true},
		{"POST", "", "/v1beta/models/gemini-2.5-flash:countTokens", "gemini", Other, "countTokens", "gemini-2.5-flash", false},
		{"POST", "", "/v1beta/models/text-embedding-004:batchEmbedContents", "gemini", Other, "batchEmbedContents", "text-embedding-004", false},
		{"GET", "", "/v1beta/models", "", Other, "", "", false},
		{"POST", "", "/v1beta/models/:generateContent", "", Other, "", "", false},
		{"POST", "", "/v1beta/interactions", "interactions", Model, "interactions", "", false},
		{"POST", "", "/v1beta1/projects/p/locations/global/interactions", "interactions", Model, "interactions", "", true},
		{"GET", "", "/v1beta/interactions/v1_abc", "interactions", Other, "interactions.get", "", false},
		{"GET", "", "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent", "live", Live, "BidiGenerateContent", "", false},
		{"GET", "", "/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained", "live", Live, "BidiGenerateContent", "", false},
		{"GET", "", "/ws/google.cloud.aiplatform.v1beta1.LlmBidiService/BidiGenerateContent", "live", Live, "BidiGenerateContent", "", true},
		{"GET", "", "/ws/google.ai.generativelanguage.v1beta.GenerativeService.Other", "", Other, "", "", false},
		{"GET", "weather.example.com", "/v1/models/x:generateContent", "http", Tool, "GET", "", false},
	} {
		got := Recognise(&cassettes.Request{Method: c.method, Host: c.host, Path: c.path})
		name := ""
		if got.Dialect != nil {
			name = got.Dialect.Name()
		}
		if name != c.dialect || got.Kind != c.kind || got.Method != c.op || got.Model != c.model || got.Vertex != c.vertex {
			t.Errorf("%s %s%s: %s %+v", c.method, c.host, c.path, name, got)
		}
	}
}

func TestRecogniseAllocatesNothing(t *testing.T) {
	reqs := []*cassettes.Request{
		{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent"},
		{Method: "POST", Path: "/v1beta/interactions"},
		{Method: "GET", Path: "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"},
		{Method: "GET", Path: "/upload/v1beta/files"},
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, r := range reqs {
			Recognise(r)
		}
	}); n != 0 {
		t.Errorf("Recognise allocated %.0f times", n)
	}
}

func TestRequestOf(t *testing.T) {
	req := &cassettes.Request{Method: "POST", Path: generatePath, Body: []byte(`{
		"systemInstruction": {"parts": [{"text": "Be brief."}]},
		"contents": [
			{"role": "user", "parts": [{"text": "Weather in Paris?"}]},
			{"role": "model", "parts": [{"text": "hm", "thought": true}, {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}]},
			{"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "get_weather", "response": {"temp_c": 18}}}, {"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}],
		"tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Current weather.", "parameters": {"type": "OBJECT"}}]}]}`)}
	r, ok := RequestOf(req)
	if !ok {
		t.Fatal("not read")
	}
	if r.Model != "m" || r.System == nil || r.System.Parts[0].Text != "Be brief." {
		t.Errorf("model %q, system %+v", r.Model, r.System)
	}
	if len(r.Contents) != 3 || r.Contents[0].Parts[0].Text != "Weather in Paris?" || !r.Contents[1].Parts[0].Thought {
		t.Fatalf("contents %+v", r.Contents)
	}
	if fc := r.Contents[1].Parts[1].FunctionCall; fc == nil || fc.ID != "c1" || fc.Args["city"] != "Paris" {
		t.Errorf("call %+v", fc)
	}
	if fr := r.Contents[2].Parts[0].FunctionResponse; fr == nil || fr.Name != "get_weather" || fr.Response["temp_c"] != float64(18) {
		t.Errorf("response %+v", fr)
	}
	if o := r.Contents[2].Parts[1].Other; string(o) != `{"inlineData": {"mimeType": "image/png", "data": "AA=="}}` {
		t.Errorf("other part %s", o)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "get_weather" || r.Tools[0].Description != "Current weather." || string(r.Tools[0].Parameters) != `{"type": "OBJECT"}` {
		t.Errorf("tools %+v", r.Tools)
	}
	req.Body = []byte(`{"systemInstruction": "Plain.", "contents": []}`)
	if r, _ := RequestOf(req); r.System == nil || r.System.Parts[0].Text != "Plain." {
		t.Errorf("a bare string instruction: %+v", r.System)
	}
	if _, ok := RequestOf(&cassettes.Request{Method: "POST", Path: "/v1beta/models/m:countTokens", Body: []byte(`{}`)}); ok {
		t.Error("countTokens read as a model call")
	}
}

func TestPayloads(t *testing.T) {
	r := &cassettes.Response{Events: []cassettes.Event{
		{Data: []byte("data: {\"a\":1}\r\n\r\n")},
		{Data: []byte(": comment\n\n")},
		{Data: []byte("event: x\ndata: {\"b\":\ndata:2}\n\n")},
	}}
	got := Payloads(r)
	if len(got) != 2 || string(got[0]) != `{"a":1}` || string(got[1]) != `{"b":2}` {
		t.Fatalf("%q", got)
	}
	if got := Payloads(&cassettes.Response{Body: []byte("{}")}); len(got) != 1 || string(got[0]) != "{}" {
		t.Fatalf("%q", got)
	}
}

func TestModelOfPath(t *testing.T) {
	for path, want := range map[string]string{
		"/v1beta/models/gemini-2.5-flash:generateContent":                                                    "gemini-2.5-flash",
		"/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent": "gemini-2.5-pro",
		"/v1beta/files": "",
	} {
		if got := ModelOfPath(path); got != want {
			t.Errorf("%s: %q", path, got)
		}
	}
}

func TestFinalStep(t *testing.T) {
	steps := []Step{{Text: "Sunny."}, {Text: "Let me check.", ToolCalls: []cassettes.ToolCall{{Name: "get_weather"}}}, {}}
	if got := FinalStep(steps); got != 0 {
		t.Errorf("FinalStep = %d, want 0 (the last answer with text and no call)", got)
	}
	if got := FinalStep(steps[1:]); got != -1 {
		t.Errorf("FinalStep without a final answer = %d, want -1", got)
	}
}
