// What an invocation adds up to: its final response, usage and latency.

package recorded

import (
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// FinalStep is the index of the step that gave the final response: the
// last one that answered with text and no tool call, what the user was told
// (ADK's rule, wire.IsFinal). It is -1 when no step did.
func (inv *Invocation) FinalStep() int { return inv.finalStep("", true) }

// FinalStepOf is FinalStep among agent's steps: where that agent's last
// answer is, when parallel agents finish in another order.
func (inv *Invocation) FinalStepOf(agent string) int { return inv.finalStep(agent, false) }

func (inv *Invocation) finalStep(agent string, anyAgent bool) int {
	for i := len(inv.Steps) - 1; i >= 0; i-- {
		if s := &inv.Steps[i]; (anyAgent || s.Agent == agent) && wire.IsFinal(&s.Step) {
			return i
		}
	}
	return -1
}

// FinalResponse is the text of FinalStep, or "".
func (inv *Invocation) FinalResponse() string {
	if i := inv.FinalStep(); i >= 0 {
		return inv.Steps[i].Text
	}
	return ""
}

// Usage sums the usage of the steps; ok is false when no step reported
// any.
func (inv *Invocation) Usage() (sum wire.Usage, ok bool) {
	for _, s := range inv.Steps {
		if u := s.Usage; u != nil {
			sum = wire.Usage{Prompt: sum.Prompt + u.Prompt, Candidates: sum.Candidates + u.Candidates, Total: sum.Total + u.Total,
				Thoughts: sum.Thoughts + u.Thoughts, Cached: sum.Cached + u.Cached, ToolUse: sum.ToolUse + u.ToolUse}
			ok = true
		}
	}
	return sum, ok
}

// Latency sums how long the steps' answers took.
func (inv *Invocation) Latency() time.Duration {
	var d time.Duration
	for _, s := range inv.Steps {
		d += s.Latency
	}
	return d
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

// IsRefused says whether the call-th tool call of the step-th step was
// refused at confirmation (among Refused).
func (inv *Invocation) IsRefused(step, call int) bool {
	for _, r := range inv.Refused {
		if r.Step == step && r.Call == call {
			return true
		}
	}
	return false
}
