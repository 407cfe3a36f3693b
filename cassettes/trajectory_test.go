package cassettes

import (
	"testing"
)

// TestTrajectoryOfOddPayloads: a body or event that is not a response
// object (null, a list, text) gives an empty trajectory, not a crash; the
// genai decoder panicked on a bare null, which crashed saving a cassette
// that had recorded one.
func TestTrajectoryOfOddPayloads(t *testing.T) {
	for _, body := range []string{"null", " null\n", "[]", "[null]", "\"text\"", "42", "", "{\"candidates\": null}"} {
		x := simpleExchange("{}", body)
		if tr := TrajectoryOf(x); tr.Text != "" || len(tr.ToolCalls) != 0 {
			t.Errorf("body %q: trajectory %+v", body, tr)
		}
		x.Response.Body = nil
		x.Response.Events = []Event{{Data: []byte("data: " + body + "\r\n\r\n")}}
		TrajectoryOf(x)
		x.Place = &Place{Session: 1, Invocation: 1, User: "hi"}
		if _, err := Marshal(&Cassette{Name: "odd", Exchanges: []*Exchange{x}}); err != nil {
			t.Errorf("body %q: %v", body, err)
		}
	}
	withText := simpleExchange("{}", `{"candidates": [{"content": {"parts": [{"text": "hi"}]}}]}`)
	if got := TrajectoryOf(withText).Text; got != "hi" {
		t.Errorf("a real response: text %q, want hi", got)
	}
}

// TestTrajectoryTextParts: the text parts of one response are joined by
// line breaks (as ADK joins a final response's parts), thoughts left out;
// the chunks of a stream are pieces of one text.
func TestTrajectoryTextParts(t *testing.T) {
	x := simpleExchange("{}", `{"candidates": [{"content": {"parts": [{"text": "First."}, {"text": "hmm", "thought": true}, {"functionCall": {"name": "f"}}, {"text": "Second."}]}}]}`)
	if got := TrajectoryOf(x).Text; got != "First.\nSecond." {
		t.Errorf("parts of one response: %q, want %q", got, "First.\nSecond.")
	}
	x.Response.Body = nil
	for _, chunk := range []string{"Hel", "lo, ", "world"} {
		x.Response.Events = append(x.Response.Events, Event{Data: []byte(`data: {"candidates": [{"content": {"parts": [{"text": "` + chunk + `"}]}}]}` + "\r\n\r\n")})
	}
	if got := TrajectoryOf(x).Text; got != "Hello, world" {
		t.Errorf("chunks of a stream: %q, want %q", got, "Hello, world")
	}
}

// TestTrajectoryReadsOnlyTheTurnAfterTheLastModelTurn: the tool results are
// those after the history's last model turn, in order; a null content
// ends the tail as a model turn would; thoughts are not the answer's text.
func TestTrajectoryReadsOnlyTheTurnAfterTheLastModelTurn(t *testing.T) {
	x := &Exchange{
		Request: Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[
			{"role":"user","parts":[{"functionResponse":{"name":"old","response":{"n":0}}}]},
			{"role":"model","parts":[{"functionCall":{"name":"a"}},{"functionCall":{"name":"b"}}]},
			{"role":"user","parts":[{"functionResponse":{"id":"1","name":"a","response":{"n":1}}}]},
			{"role":"user","parts":[{"text":"and"},{"functionResponse":{"id":"2","name":"b","response":{"n":2.5}}}]}]}`)},
		Response: Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[
			{"text":"thinking","thought":true},{"text":"one"},{"functionCall":{"id":"c","name":"f","args":{"k":[1,null]}}},{"text":"two"}]},
			"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":3},"modelVersion":"m-1"}`)},
	}
	tr := TrajectoryOf(x)
	if len(tr.ToolResults) != 2 || tr.ToolResults[0].Name != "a" || tr.ToolResults[1].ID != "2" || tr.ToolResults[1].Response["n"] != 2.5 {
		t.Fatalf("tool results %+v", tr.ToolResults)
	}
	if tr.Text != "one\ntwo" || tr.FinishReason != "STOP" || tr.ModelVersion != "m-1" || tr.Usage == nil || tr.Usage.PromptTokenCount != 7 {
		t.Fatalf("answer %q %q %q %+v", tr.Text, tr.FinishReason, tr.ModelVersion, tr.Usage)
	}
	if len(tr.ToolCalls) != 1 || tr.ToolCalls[0].Name != "f" || tr.ToolCalls[0].ID != "c" {
		t.Fatalf("tool calls %+v", tr.ToolCalls)
	}
	x.Request.Body = []byte(`{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"a"}}]},null,{"role":"user","parts":[{"functionResponse":{"name":"b"}}]}]}`)
	if tr := TrajectoryOf(x); len(tr.ToolResults) != 1 || tr.ToolResults[0].Name != "b" {
		t.Fatalf("after a null content: %+v", tr.ToolResults)
	}
}
