package conversation_test

import (
	"testing"

	"github.com/adkproxy/adkproxy/internal/data/conversation"
)

// TestAgentUsedAsToolJoinsItsCaller: ADK's AgentTool hands the sub-agent
// its task as the only user text, {"request": T} in the caller's function
// call; the sub-agent's call is filed in the caller's invocation, while
// another agent saying the same words (or the same agent without a pending
// call) starts a session of its own.
func TestAgentUsedAsToolJoinsItsCaller(t *testing.T) {
	const path = "/v1beta/models/m:generateContent"
	agentCall := func(name, text string) *conversation.Call {
		c, ok := analyze(path, []byte(`{"contents":[{"role":"user","parts":[{"text":"`+text+`"}]}],
			"systemInstruction":{"parts":[{"text":"You are an agent. Your internal name is \"`+name+`\"."}]}}`))
		if !ok {
			t.Fatal("not a model call")
		}
		return c
	}
	org := conversation.NewOrganizer()
	caller, token := org.Place(agentCall("call_center", "New customer call."), "")
	org.Calls(token, []conversation.FunctionCall{{Name: "greeting_agent", Args: `{"request":"new customer call"}`}})

	other, _ := org.Place(agentCall("identity_agent", "new customer call"), "")
	if other.Session == caller.Session {
		t.Errorf("an agent the caller did not call joined its session: %+v", other)
	}
	sub, _ := org.Place(agentCall("greeting_agent", "new customer call"), "")
	if sub.Session != caller.Session || sub.Invocation != caller.Invocation || sub.Agent != "greeting_agent" {
		t.Errorf("the agent used as a tool is placed at %+v, want the caller's %+v", sub, caller)
	}
	again, _ := org.Place(agentCall("greeting_agent", "new customer call"), "")
	if again.Session == caller.Session {
		t.Errorf("a second call with the pending call consumed joined too: %+v", again)
	}
}
