// Recorded sessions in the shape scoring compares, read from the cassettes'
// conversations and each model call's trajectory.

package scoring

import (
	"fmt"
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// SessionsOf turns cassettes into the sessions they recorded, sorted by
// cassette name and session id, grouped as replay groups them (version 1
// cassettes are organized first). Requests that are not model calls take
// no part.
func SessionsOf(cs map[string]*cassettes.Cassette) []Session {
	var out []Session
	for _, name := range slices.Sorted(maps.Keys(cs)) {
		sessions, _ := conversation.Group(cs[name])
		for _, rs := range sessions {
			s := Session{Cassette: name, ID: rs.ID}
			for _, inv := range rs.Invocations {
				s.Invocations = append(s.Invocations, invocationOf(fmt.Sprintf("%s/%d/%d", name, rs.ID, inv.ID), &inv))
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

// invocationOf reads an invocation from its model calls, in recorded order.
func invocationOf(id string, recorded *conversation.Invocation) Invocation {
	ts := make([]cassettes.Trajectory, len(recorded.Steps))
	for i, x := range recorded.Steps {
		ts[i] = wire.StepOf(x)
	}
	inv := Invocation{ID: id, UserText: recorded.User}
	final := wire.FinalStep(ts)
	if final >= 0 {
		inv.FinalResponse = ts[final].Text
	}
	for i, t := range ts {
		x := recorded.Steps[i]
		step := Step{Agent: x.Place.Agent, Model: t.ModelVersion, Status: x.Response.Status, Latency: t.Latency, Text: t.Text}
		if len(t.ToolCalls) > 0 {
			step.ToolCalls = t.ToolCalls
		}
		if len(t.ToolResults) > 0 {
			step.ToolResults = t.ToolResults
		}
		if step.Model == "" {
			step.Model = conversation.ModelOfPath(x.Request.Path)
		}
		if u := t.Usage; u != nil {
			step.Usage = Usage{Prompt: int64(u.Prompt), Candidates: int64(u.Candidates), Cached: int64(u.Cached),
				Thoughts: int64(u.Thoughts), ToolUse: int64(u.ToolUse), Total: int64(u.Total)}
		}
		step.Grounding = groundingOf(x)
		stepDetails(&step, x)
		inv.ToolCalls = append(inv.ToolCalls, step.ToolCalls...)
		inv.ToolResults = append(inv.ToolResults, step.ToolResults...)
		if i != final && step.Text != "" {
			inv.IntermediateResponses = append(inv.IntermediateResponses, AuthoredText{Author: step.Agent, Text: step.Text})
		}
		inv.Steps = append(inv.Steps, step)
	}
	for _, x := range recorded.HTTPCalls {
		inv.ToolHTTP = append(inv.ToolHTTP, ToolHTTPCall{Host: cassettes.HTTPCallOf(x).Host, Status: x.Response.Status, Latency: x.Response.Latency})
	}
	transferResults(&inv)
	return inv
}
