package evalset_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
)

// What the writer writes, in both forms of intermediate data and for a
// scenario case, reads back as it was meant.
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
	got, err := evalset.ParseEvalSet("written.evalset.json", b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if len(got.EvalCases) != 4 {
		t.Fatalf("%d cases read back, want 4", len(got.EvalCases))
	}
	doc, events, empty, sim := got.EvalCases[0], got.EvalCases[1], got.EvalCases[2], got.EvalCases[3]
	inv := doc.Conversation[0]
	d := inv.IntermediateData
	if inv.UserContent.Text() != "weather?" || inv.FinalResponse.Text() != "Sunny, 21.5 °C <hot>" || !reflect.DeepEqual(d.ToolUses, []cassettes.ToolCall{call}) ||
		fmt.Sprint(d.ToolResponses) != fmt.Sprint([]cassettes.ToolResult{result}) || len(d.IntermediateResponses) != 1 ||
		d.IntermediateResponses[0].Author != "helper" || d.IntermediateResponses[0].Parts[0].Text != "looking" || d.Events != nil {
		t.Errorf("documented form read back as %+v", inv)
	}
	if ev := events.Conversation[0]; len(ev.IntermediateData.Events) != 2 || !reflect.DeepEqual(ev.IntermediateData.Events[0].Content.Parts[0].FunctionCall, &call) ||
		ev.IntermediateData.Events[1].Content.Role != "user" || ev.FinalResponse != nil {
		t.Errorf("invocation_events form read back as %+v", ev)
	}
	if si, err := scenarios.ParseSessionInput("kept", evalset.RawJSON(events.SessionInput)); err != nil || si.UserID != "alice" || si.AppName != "app" {
		t.Errorf("session_input read back as %+v (%v)", si, err)
	}
	if empty.Conversation == nil || len(empty.Conversation) != 0 || empty.SessionInput != nil {
		t.Errorf("a case without invocations read back as %+v", empty)
	}
	if sim.Scenario == nil || sim.Conversation != nil {
		t.Errorf("a scenario case read back as %+v", sim)
	}
}
