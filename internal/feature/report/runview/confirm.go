// ADK's tool confirmation as the model wire shows it: a tool call whose
// result is ADK's refusal was refused by the user.

package runview

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
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
// is ADK's refusal (adkapi.IsRefusal). A result goes with the earliest
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
				if adkapi.IsRefusal(r.Name, r.Response) {
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

// Confirmation is a user's recorded answer to ADK's request to confirm a
// tool call of the invocation (reported to the proxy by the client that
// answered, cassettes.Confirmation): the call's step and index, and the
// answer.
type Confirmation struct {
	Step   int                    `json:"step"`
	Call   int                    `json:"call"`
	Answer cassettes.Confirmation `json:"-"`
}

// MarshalJSON writes the confirmed call as ls shows calls, then the answer.
func (c Confirmation) MarshalJSON() ([]byte, error) {
	return textfmt.CompactJSON(struct {
		Step     int            `json:"step"`
		Call     int            `json:"call"`
		Name     string         `json:"name"`
		Args     map[string]any `json:"args"`
		Decision string         `json:"decision"`
		Payload  any            `json:"payload"`
		Shape    string         `json:"shape"`
		Hint     string         `json:"hint"`
	}{c.Step, c.Call, c.Answer.Tool, nonNil(c.Answer.Args), c.Answer.Decision(), c.Answer.Payload, c.Answer.Shape, c.Answer.Hint})
}

// confirmationsOf files the answers recorded on the invocation's steps on
// the calls they answered: each on the earliest earlier call of its tool
// not answered yet.
func confirmationsOf(inv *Invocation) []Confirmation {
	type ref struct{ step, call int }
	taken := map[ref]bool{}
	out := []Confirmation{}
	for i, s := range inv.Steps {
		if s.Exchange == nil {
			continue
		}
		for _, answer := range s.Exchange.Confirmations {
			at := ref{-1, -1}
			for j := 0; j < i && at.step < 0; j++ {
				for k, tc := range inv.Steps[j].ToolCalls {
					if tc.Name == answer.Tool && !taken[ref{j, k}] {
						at = ref{j, k}
						break
					}
				}
			}
			if at.step < 0 {
				continue // no call of the tool before it: nothing to show it on
			}
			taken[at] = true
			out = append(out, Confirmation{Step: at.step, Call: at.call, Answer: answer})
		}
	}
	return out
}

// ConfirmationOf is the recorded answer about the call-th tool call of the
// invocation's step-th step (indexes into Steps and its ToolCalls), if any.
func (inv *Invocation) ConfirmationOf(step, call int) (cassettes.Confirmation, bool) {
	for _, c := range inv.Confirmations {
		if c.Step == step && c.Call == call {
			return c.Answer, true
		}
	}
	return cassettes.Confirmation{}, false
}

// PayloadNote is " (payload …)" for an answer with a payload, else "".
func PayloadNote(payload any) string {
	if payload == nil {
		return ""
	}
	return " (payload " + textfmt.Truncate(textfmt.JSON(payload), valueWidth) + ")"
}
