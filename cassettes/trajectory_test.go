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
