// ADK's tool confirmation as the model wire shows it: a tool call whose
// result is ADK's refusal was refused by the user.

package runview

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/adk/api"
	"github.com/adkproxy/adkproxy/internal/textfmt"
)

// Refusal is a tool call of an invocation that the user refused when ADK
// asked to confirm it (adk_request_confirmation): the call's step and
// index among the step's calls, and the call.
type Refusal struct {
	Step     int                `json:"step"`
	Call     int                `json:"call"`
	ToolCall cassettes.ToolCall `json:"-"`
}

// MarshalJSON writes the call as ls shows calls: its name and arguments,
// without its id.
func (r Refusal) MarshalJSON() ([]byte, error) {
	return textfmt.CompactJSON(struct {
		Step int            `json:"step"`
		Call int            `json:"call"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}{r.Step, r.Call, r.ToolCall.Name, nonNil(r.ToolCall.Args)})
}

// refusalsOf are the invocation's tool calls whose result, in a later step,
// is ADK's refusal (api.IsRefusal). A result goes with the earliest
// unanswered call of its name: ids differ between runs and ADK's wire
// history drops them.
func refusalsOf(inv *Invocation) []Refusal {
	type ref struct{ step, call int }
	var calls []ref
	answered := map[ref]bool{}
	out := []Refusal{}
	for i, s := range inv.Steps {
		for _, r := range s.ToolResults {
			for _, c := range calls {
				tc := inv.Steps[c.step].ToolCalls[c.call]
				if answered[c] || tc.Name != r.Name {
					continue
				}
				answered[c] = true
				if api.IsRefusal(r.Name, r.Response) {
					out = append(out, Refusal{Step: c.step, Call: c.call, ToolCall: tc})
				}
				break
			}
		}
		for j := range s.ToolCalls {
			calls = append(calls, ref{i, j})
		}
	}
	return out
}

// refused says whether the step's j-th tool call is among refusals.
func refused(refusals []Refusal, step, call int) bool {
	for _, r := range refusals {
		if r.Step == step && r.Call == call {
			return true
		}
	}
	return false
}
