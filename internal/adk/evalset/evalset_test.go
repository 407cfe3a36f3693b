package evalset_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/adk/evalset"
	"github.com/adkproxy/adkproxy/internal/eval/scenarios"
	"github.com/adkproxy/adkproxy/internal/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// What the writer writes, in both forms of intermediate data and for a
// scenario case, reads back through the one reader (scoring.ParseEvalSet)
// as it was meant.
func TestWrittenEvalSetReadsBack(t *testing.T) {
	call := cassettes.ToolCall{Name: "get_weather", Args: map[string]any{"city": "Paris"}}
	result := cassettes.ToolResult{Name: "get_weather", Response: map[string]any{"temp_c": 21.5}}
	final := evalset.TextContent("model", "Sunny, 21.5 °C <hot>")
	set := evalset.EvalSet{EvalSetID: "s", Name: "s", EvalCases: []evalset.EvalCase{
		{EvalID: "documented", Conversation: []evalset.Invocation{{
			InvocationID: "1", UserContent: evalset.TextContent("user", "weather?"), FinalResponse: &final,
			IntermediateData: evalset.IntermediateData{ToolUses: []cassettes.ToolCall{call}, ToolResponses: []cassettes.ToolResult{result},
				IntermediateResponses: []evalset.AuthoredParts{{Author: "helper", Parts: []evalset.Part{{Text: "looking"}}}}},
		}}},
		{EvalID: "events", SessionInput: scenarios.SessionInput{AppName: "app", UserID: "alice", State: map[string]any{"n": 1}},
			Conversation: []evalset.Invocation{{
				UserContent: evalset.TextContent("user", "weather?"),
				IntermediateData: evalset.IntermediateData{Events: []evalset.Event{
					{Author: "agent", Content: evalset.Content{Role: "model", Parts: []evalset.Part{{FunctionCall: &call}}}},
					{Author: "agent", Content: evalset.Content{Role: "user", Parts: []evalset.Part{{FunctionResponse: &result}}}},
				}},
			}}},
		{EvalID: "empty"},
		{EvalID: "simulated", Scenario: map[string]any{"starting_prompt": "hi", "conversation_plan": "ask about Paris"}},
	}}
	b, err := textfmt.IndentedJSON(set) // as the writers write it
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `\u003c`) {
		t.Errorf("HTML characters escaped: %s", b)
	}
	exp, err := scoring.ParseEvalSet("written.evalset.json", b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(exp.Cases) != 4 {
		t.Fatalf("%d cases read back, want 4", len(exp.Cases))
	}
	doc, events, empty, sim := exp.Cases[0], exp.Cases[1], exp.Cases[2], exp.Cases[3]
	inv := doc.Invocations[0]
	if inv.UserText != "weather?" || inv.FinalResponse != "Sunny, 21.5 °C <hot>" || !reflect.DeepEqual(inv.ToolCalls, []cassettes.ToolCall{call}) ||
		fmt.Sprint(inv.ToolResults) != fmt.Sprint([]cassettes.ToolResult{result}) || len(inv.IntermediateResponses) != 1 || inv.IntermediateResponses[0].Text != "looking" {
		t.Errorf("documented form read back as %+v", inv)
	}
	if ev := events.Invocations[0]; !reflect.DeepEqual(ev.ToolCalls, []cassettes.ToolCall{call}) || ev.FinalResponse != "" {
		t.Errorf("invocation_events form read back as %+v", ev)
	}
	if si, err := scenarios.ParseSessionInput("kept", events.SessionInput); err != nil || si.UserID != "alice" || si.AppName != "app" {
		t.Errorf("session_input read back as %+v (%v)", si, err)
	}
	if empty.Invocations == nil || len(empty.Invocations) != 0 || empty.SessionInput != nil {
		t.Errorf("a case without invocations read back as %+v", empty)
	}
	if sim.Scenario == nil || sim.Invocations != nil {
		t.Errorf("a scenario case read back as %+v", sim)
	}
}
