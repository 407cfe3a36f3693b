// Comparing invocations: what parallel agents' order does not change.

package rundiff

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// Parallel agents answer in any order: the last answer (ADK's final
// response) may come from either, which is no change; a changed answer of
// the agent that answered last in NEW still is one.
func TestParallelAgentsFinalResponse(t *testing.T) {
	inv := func(steps ...recorded.Step) *recorded.Invocation {
		return &recorded.Invocation{User: "Check Paris", Agents: []string{"a", "b"}, Steps: steps}
	}
	answer := func(agent, text string) recorded.Step {
		return recorded.Step{Agent: agent, Step: wire.Step{Text: text}}
	}
	old := inv(answer("a", "Sunny."), answer("b", "10:00."))
	for _, tc := range []struct {
		new    *recorded.Invocation
		change bool
	}{
		{inv(answer("b", "10:00."), answer("a", "Sunny.")), false},
		{inv(answer("b", "10:00."), answer("a", "Cloudy.")), true},
		{inv(answer("a", "Sunny."), answer("b", "11:00.")), true},
	} {
		d := diffInvocation(old, tc.new, &Options{})
		if got := len(d.Changes) == 1 && d.Changes[0].Kind == ResponseChanged; got != tc.change || (!tc.change && len(d.Changes) > 0) {
			t.Errorf("%v → %v: changes %+v", old.Steps, tc.new.Steps, d.Changes)
		}
	}
}

// A call's result is the one its id names, not the first of its name:
// results sent back in another order than the calls stay on their calls.
func TestCallsTakeTheirResultsByID(t *testing.T) {
	call := func(id, city string) cassettes.ToolCall {
		return cassettes.ToolCall{ID: id, Name: "get_weather", Args: map[string]any{"city": city}}
	}
	result := func(id, temp string) cassettes.ToolResult {
		return cassettes.ToolResult{ID: id, Name: "get_weather", Response: map[string]any{"temp": temp}}
	}
	inv := &recorded.Invocation{Steps: []recorded.Step{
		{Agent: "a", Step: wire.Step{ToolCalls: []cassettes.ToolCall{call("p", "Paris"), call("o", "Oslo")}}},
		{Agent: "a", Step: wire.Step{ToolResults: []cassettes.ToolResult{result("o", "-3"), result("p", "18")}, Text: "done"}},
	}}
	calls := callsOf(inv)
	if len(calls) != 2 || calls[0].result["temp"] != "18" || calls[1].result["temp"] != "-3" {
		t.Fatalf("calls and results: %+v", calls)
	}
}
