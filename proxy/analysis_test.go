package proxy

import (
	"testing"

	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// TestKeepingReusesTheAnalysisOfTheSameBytes: keeping an exchange takes
// the call the forward analysed when the kept body is the analysed one,
// and analyses anew when it is not (redaction or a hook changed it).
func TestKeepingReusesTheAnalysisOfTheSameBytes(t *testing.T) {
	m := matcher.Default()
	const path = "/v1beta/models/gemini-2.5-flash:generateContent"
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"hello"}]}]}`)
	call, ok := conversation.Analyze(m, path, body)
	if !ok {
		t.Fatal("not a model call")
	}
	a := &analysis{call: call, ok: true, model: true, path: path, body: body}
	if got := modelCall(a, m, path, append([]byte(nil), body...)); got != call {
		t.Error("the same bytes were analysed again")
	}
	other := []byte(`{"contents":[{"role":"user","parts":[{"text":"[REDACTED]"}]}]}`)
	got := modelCall(a, m, path, other)
	if got == call || got == nil || got.UserText != "[REDACTED]" {
		t.Errorf("changed bytes gave %+v; want a new analysis of them", got)
	}
	interaction := &analysis{ok: true, model: false, path: path, body: body}
	if got := modelCall(interaction, m, path, body); got != nil {
		t.Errorf("an interaction's analysis gave model call %+v", got)
	}
	if got := modelCall(nil, m, path, body); got == nil || got.Key != call.Key {
		t.Errorf("without an analysis: %+v; want the body's call", got)
	}
}
