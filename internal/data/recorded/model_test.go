package recorded

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// TestInvocationModel: what diff and score pages read from an invocation
// beyond the ls table: the final response, summed usage and latency, what
// each agent was sent, and tool calls without arguments kept apart from
// empty ones.
func TestInvocationModel(t *testing.T) {
	req := `{"contents":[{"role":"user","parts":[{"text":"weather <Paris>?"}]}],` +
		`"systemInstruction":{"parts":[{"text":"You are helpful."},{"text":"Your internal name is \"root\"."}]},` +
		`"generationConfig":{"temperature":0.2},"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`
	step := func(step int, resp string, latency time.Duration) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:generateContent", Body: []byte(req)},
			Response: cassettes.Response{Status: 200, Body: []byte(resp), Latency: latency},
			Place:    &cassettes.Place{Session: 1, Invocation: 1, Step: step, Agent: "root", User: "weather <Paris>?"},
		}
	}
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{
		step(0, `{"candidates":[{"content":{"parts":[{"text":"Let me look."},{"functionCall":{"name":"get_weather"}},{"functionCall":{"name":"now","args":{"q":"<x>"}}}]}}],`+
			`"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"thoughtsTokenCount":3,"totalTokenCount":15}}`, 40*time.Millisecond),
		step(2, `{"candidates":[{"content":{"parts":[{"text":"It is <18°C>."}]}}],"modelVersion":"gemini-2.5-flash-001",`+
			`"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":4,"totalTokenCount":24}}`, 60*time.Millisecond),
	}}
	inv := CassetteOf("c", "c.yaml", c).Sessions[0].Invocations[0]
	if inv.FinalStep() != 1 || inv.FinalResponse() != "It is <18°C>." {
		t.Errorf("final step %d, response %q", inv.FinalStep(), inv.FinalResponse())
	}
	if u, ok := inv.Usage(); !ok || u != (wire.Usage{Prompt: 30, Candidates: 6, Thoughts: 3, Total: 39}) {
		t.Errorf("usage %+v %v", u, ok)
	}
	if inv.Latency() != 100*time.Millisecond {
		t.Errorf("latency %v", inv.Latency())
	}
	if inv.Steps[0].Model != "gemini-2.5-flash" || inv.Steps[1].Model != "gemini-2.5-flash-001" {
		t.Errorf("models %q %q", inv.Steps[0].Model, inv.Steps[1].Model)
	}
	sent := inv.Steps[1].Sent()
	if sent.Model != "gemini-2.5-flash" || sent.SystemInstruction != "You are helpful.\nYour internal name is \"root\"." ||
		sent.GenerationConfig["temperature"] != json.Number("0.2") || len(sent.Tools) != 1 {
		t.Errorf("sent %+v", sent)
	}
	calls := inv.Steps[0].ToolCalls
	if len(calls) != 2 || calls[0].Args != nil || calls[1].Args == nil {
		t.Fatalf("tool calls %+v: want nil arguments kept apart from empty ones", calls)
	}
}

// A bare-string system instruction (some clients send one) and a body that
// is not JSON are read too.
func TestSentOddBodies(t *testing.T) {
	for body, want := range map[string]Sent{
		`{"systemInstruction":"Be brief.","contents":[]}`: {Model: "m", SystemInstruction: "Be brief."},
		`not json`: {Model: "m"},
	} {
		s := Step{Exchange: &cassettes.Exchange{Request: cassettes.Request{Path: "/v1beta/models/m:generateContent", Body: []byte(body)}}}
		if got := s.Sent(); got.Model != want.Model || got.SystemInstruction != want.SystemInstruction || got.GenerationConfig != nil || got.Tools != nil {
			t.Errorf("%s: %+v", body, got)
		}
	}
}

// TestFinalStepOf: the final step is the last answer with text and no
// tool call; FinalStepOf looks among one agent's steps only.
func TestFinalStepOf(t *testing.T) {
	step := func(agent, text string, calls int) Step {
		return Step{Agent: agent, Step: wire.Step{Text: text, ToolCalls: make([]cassettes.ToolCall, calls)}}
	}
	inv := Invocation{Steps: []Step{step("a", "first", 0), step("b", "second", 0), step("a", "calling", 1), step("b", "", 0)}}
	if inv.FinalStep() != 1 || inv.FinalStepOf("a") != 0 || inv.FinalStepOf("b") != 1 || inv.FinalStepOf("c") != -1 {
		t.Errorf("final %d, of a %d, of b %d, of c %d", inv.FinalStep(), inv.FinalStepOf("a"), inv.FinalStepOf("b"), inv.FinalStepOf("c"))
	}
	if (&Invocation{}).FinalStep() != -1 {
		t.Error("an invocation without steps has a final step")
	}
}
