package judge

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/scoring"
)

// hallucinations_v1 judges the final response against everything before
// it and, with evaluate_intermediate_nl_responses, each earlier text
// against the steps before that text only.
func TestNLResponsesAndTheirContext(t *testing.T) {
	inv := scoring.Invocation{UserText: "Weather in Paris?", FinalResponse: "It is sunny.", Steps: []scoring.Step{
		{Agent: "a", Text: "Let me check.", ToolCalls: []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}},
		{Agent: "a", ToolResults: []cassettes.ToolResult{{Name: "get_weather", Response: map[string]any{"sky": "sunny"}}}, Text: "It is sunny."},
	}}
	final := nlResponses(&inv, false, adkversion.Version{})
	if len(final) != 1 || final[0].Text != "It is sunny." || !strings.Contains(final[0].Context, `"sky": "sunny"`) ||
		!strings.Contains(final[0].Context, "Let me check.") {
		t.Fatalf("final only: %+v", final)
	}
	all := nlResponses(&inv, true, adkversion.Version{})
	if len(all) != 2 || all[0].Text != "Let me check." || strings.Contains(all[0].Context, "get_weather") ||
		!strings.Contains(all[0].Context, "Weather in Paris?") {
		t.Fatalf("with intermediate: %+v", all)
	}
	// No steps (an invocation without recorded model calls): the final
	// response against the calls and results.
	bare := scoring.Invocation{UserText: "hi", FinalResponse: "hello", ToolCalls: inv.Steps[0].ToolCalls}
	if got := nlResponses(&bare, true, adkversion.Version{}); len(got) != 1 || got[0].Text != "hello" || !strings.Contains(got[0].Context, "get_weather") {
		t.Errorf("without steps: %+v", got)
	}
}
