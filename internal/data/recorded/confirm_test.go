package recorded

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// A refusal goes with the earliest unanswered call of its name: of two
// book_room calls in one step the second was refused; a refusal of a call
// answered already, or of a tool never called, is no refusal of a call.
func TestRefusalsPairResultsWithCalls(t *testing.T) {
	call := func(city string) cassettes.ToolCall {
		return cassettes.ToolCall{Name: "book_room", Args: map[string]any{"city": city}}
	}
	booked := cassettes.ToolResult{Name: "book_room", Response: map[string]any{"status": "booked"}}
	rejected := cassettes.ToolResult{Name: "book_room", Response: map[string]any{"error": "This tool call is rejected."}}
	inv := Invocation{Steps: []Step{
		{Step: wire.Step{ToolCalls: []cassettes.ToolCall{call("Paris"), call("Oslo")}}},
		{Step: wire.Step{ToolResults: []cassettes.ToolResult{booked, rejected}, ToolCalls: []cassettes.ToolCall{call("Rome")}}},
		{Step: wire.Step{ToolResults: []cassettes.ToolResult{rejected, rejected, {Name: "other", Response: rejected.Response}}}},
	}}
	got := refusalsOf(&inv)
	if len(got) != 2 || got[0].Step != 0 || got[0].Call != 1 || got[0].ToolCall.Args["city"] != "Oslo" ||
		got[1].Step != 1 || got[1].Call != 0 || got[1].ToolCall.Args["city"] != "Rome" {
		t.Errorf("refusals: %+v", got)
	}
}
