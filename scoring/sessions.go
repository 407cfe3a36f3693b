// Recorded sessions in the shape scoring compares, read from the model of
// the recorded run (package recorded).

package scoring

import (
	"fmt"
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// SessionsOf turns cassettes into the sessions they recorded, sorted by
// cassette name and session id, grouped as replay groups them (version 1
// cassettes are organized first). Requests that are not model calls take
// no part.
func SessionsOf(cs map[string]*cassettes.Cassette) []Session {
	var out []Session
	for _, name := range slices.Sorted(maps.Keys(cs)) {
		rc := recorded.CassetteOf(name, "", cs[name])
		for _, rs := range rc.Sessions {
			s := Session{Cassette: name, ID: rs.ID}
			for i := range rs.Invocations {
				inv := &rs.Invocations[i]
				s.Invocations = append(s.Invocations, invocationOf(fmt.Sprintf("%s/%d/%d", name, rs.ID, inv.ID), inv))
			}
			out = append(out, s)
		}
	}
	agents := map[string]bool{}
	for _, s := range out {
		for _, inv := range s.Invocations {
			for _, st := range inv.Steps {
				if st.Agent != "" {
					agents[st.Agent] = true
				}
			}
		}
	}
	names := slices.Sorted(maps.Keys(agents))
	for i := range out {
		out[i].RunAgents = names
	}
	return out
}

// invocationOf is scoring's view of a recorded invocation: its steps in
// recorded order, with what ADK's judges read of each model call.
func invocationOf(id string, rec *recorded.Invocation) Invocation {
	inv := Invocation{ID: id, UserText: rec.User, FinalResponse: rec.FinalResponse()}
	final := rec.FinalStep()
	for i := range rec.Steps {
		rs := &rec.Steps[i]
		step := Step{Agent: rs.Agent, Model: rs.Model, Status: rs.Status, Latency: rs.Latency, Text: rs.Text}
		if len(rs.ToolCalls) > 0 {
			step.ToolCalls = rs.ToolCalls
		}
		if len(rs.ToolResults) > 0 {
			step.ToolResults = rs.ToolResults
		}
		if u := rs.Usage; u != nil {
			step.Usage = Usage{Prompt: int64(u.Prompt), Candidates: int64(u.Candidates), Cached: int64(u.Cached),
				Thoughts: int64(u.Thoughts), ToolUse: int64(u.ToolUse), Total: int64(u.Total)}
		}
		step.Grounding = groundingOf(rs.Exchange)
		stepDetails(&step, rs.Exchange)
		inv.ToolCalls = append(inv.ToolCalls, step.ToolCalls...)
		inv.ToolResults = append(inv.ToolResults, step.ToolResults...)
		if i != final && step.Text != "" {
			inv.IntermediateResponses = append(inv.IntermediateResponses, AuthoredText{Author: step.Agent, Text: step.Text})
		}
		inv.Steps = append(inv.Steps, step)
	}
	for _, h := range rec.HTTPCalls {
		inv.ToolHTTP = append(inv.ToolHTTP, ToolHTTPCall{Host: h.Host, Status: h.Status, Latency: h.Latency})
	}
	for _, r := range rec.Refused {
		inv.askConfirmation(r.Step, r.Call)
	}
	for _, c := range rec.Confirmations {
		inv.askConfirmation(c.Step, c.Call)
	}
	transferResults(&inv)
	return inv
}

func (inv *Invocation) askConfirmation(step, call int) {
	if inv.askedAt == nil {
		inv.askedAt = map[[2]int]bool{}
	}
	inv.askedAt[[2]int{step, call}] = true
}
