// ADK's tool confirmation in the model: a tool call whose result is ADK's
// refusal was refused by the user; an answer the client reported is filed
// on the call it answered.

package recorded

import (
	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
)

// Refusal is a tool call of an invocation that the user refused when ADK
// asked to confirm it (adk_request_confirmation): the call's step and
// index among the step's calls (indexes into Steps and its ToolCalls), and
// the call.
type Refusal struct {
	Step, Call int
	ToolCall   cassettes.ToolCall
}

// Confirmation is a user's recorded answer to ADK's request to confirm a
// tool call of the invocation (reported to the proxy by the client that
// answered, cassettes.Confirmation): the call's step and index (indexes
// into Steps and its ToolCalls), and the answer.
type Confirmation struct {
	Step, Call int
	Answer     cassettes.Confirmation
}

// refusalsOf are the invocation's tool calls whose result, in a later step,
// is ADK's refusal (adkapi.IsRefusal), each result on its call by
// PairResults.
func refusalsOf(inv *Invocation) []Refusal {
	out := []Refusal{}
	for i, answers := range PairResults(inv.Turns()) {
		for k, ref := range answers {
			r := inv.Steps[i].ToolResults[k]
			if ref.Step >= 0 && adkapi.IsRefusal(r.Name, r.Response) {
				out = append(out, Refusal{Step: ref.Step, Call: ref.Call, ToolCall: inv.Steps[ref.Step].ToolCalls[ref.Call]})
			}
		}
	}
	return out
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
