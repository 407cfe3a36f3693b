package conversation_test

import (
	"fmt"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
)

// A client that names no agent (plain genai) gets its model's name, not
// "agent"; a second unnamed agent on the same model gets a number, and a
// cassette being extended keeps counting from the names it holds.
func TestUnnamedAgentsAreNamedAfterTheirModel(t *testing.T) {
	call := func(model, instruction string) *conversation.Call {
		c, ok := analyze("/v1beta/models/"+model+":generateContent", fmt.Appendf(nil,
			`{"systemInstruction":{"parts":[{"text":%q}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, instruction))
		if !ok {
			t.Fatal("not a model call")
		}
		return c
	}
	org := conversation.NewOrganizer()
	for _, tc := range []struct{ model, instruction, want string }{
		{"gemini-2.5-flash", "one", "gemini-2.5-flash"},
		{"gemini-2.5-flash", "two", "gemini-2.5-flash-2"},
		{"gemini-2.5-pro", "three", "gemini-2.5-pro"},
		{"gemini-2.5-flash", "one", "gemini-2.5-flash"},
		{"gemini-2.5-flash", `Your internal name is "planner".`, "planner"},
	} {
		if p, _ := org.Place(call(tc.model, tc.instruction), ""); p.Agent != tc.want {
			t.Errorf("%s %q: agent %q, want %q", tc.model, tc.instruction, p.Agent, tc.want)
		}
	}

	restored := conversation.NewOrganizer()
	restored.Restore(call("gemini-2.5-flash", "one"), &cassettes.Exchange{
		Response: cassettes.Response{Status: 200, Body: []byte(`{}`)},
		Place:    &cassettes.Place{Session: 1, Invocation: 1, User: "hi", Agent: "gemini-2.5-flash"},
	})
	if p, _ := restored.Place(call("gemini-2.5-flash", "two"), ""); p.Agent != "gemini-2.5-flash-2" {
		t.Errorf("after a restored unnamed agent: %q, want gemini-2.5-flash-2", p.Agent)
	}
}
