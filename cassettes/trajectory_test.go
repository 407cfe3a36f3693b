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
