// The conversation history as the simulated user reads it: ADK's rendering
// of the session's events, one entry per text part (and, with
// include_function_calls, per tool call and result), blank-line separated.

package simulate

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/adk/api"
	"github.com/adkproxy/adkproxy/internal/pyjson"
)

// renderHistory renders events in order: "<author>: <text>" per non-thought
// text part, and with functionCalls also "<author> called tool '<name>'
// with args: <args>" and "Tool '<name>' returned: <response>", the values
// as Python dict reprs (as ADK renders them, keys sorted since JSON
// objects have no order in Go).
func renderHistory(events []api.Event, functionCalls bool) string {
	var entries []string
	for _, ev := range events {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			switch {
			case p == nil || p.Thought:
			case p.Text != "":
				entries = append(entries, ev.Author+": "+p.Text)
			case functionCalls && p.FunctionCall != nil:
				entries = append(entries, fmt.Sprintf("%s called tool '%s' with args: %s", ev.Author, p.FunctionCall.Name, pyjson.Repr(p.FunctionCall.Args)))
			case functionCalls && p.FunctionResponse != nil:
				entries = append(entries, fmt.Sprintf("Tool '%s' returned: %s", p.FunctionResponse.Name, pyjson.Repr(p.FunctionResponse.Response)))
			}
		}
	}
	return strings.Join(entries, "\n\n")
}
