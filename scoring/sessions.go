// Recorded sessions in the shape scoring compares, read from the run view.

package scoring

import (
	"fmt"
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/report/runview"
)

// SessionsOf turns cassettes into the sessions they recorded, sorted by
// cassette name and session id, read as runview reads them (version 1
// cassettes are organized first). Requests that are not model calls take
// no part.
func SessionsOf(cs map[string]*cassettes.Cassette) []Session {
	var out []Session
	for _, name := range slices.Sorted(maps.Keys(cs)) {
		for _, vs := range runview.CassetteOf(name, "", cs[name]).Sessions {
			s := Session{Cassette: name, ID: vs.ID}
			for _, inv := range vs.Invocations {
				s.Invocations = append(s.Invocations, invocationOf(fmt.Sprintf("%s/%d/%d", name, vs.ID, inv.ID), &inv))
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

// invocationOf reads an invocation from its steps, in recorded order.
func invocationOf(id string, view *runview.Invocation) Invocation {
	inv := Invocation{ID: id, UserText: view.User, FinalResponse: view.FinalResponse()}
	final := view.FinalStep()
	for i, vs := range view.Steps {
		step := Step{Agent: vs.Agent, Model: vs.Model, Status: vs.Status, Latency: vs.Latency, Text: vs.Text}
		if u := vs.Usage; u != nil {
			step.Usage = Usage{Prompt: int64(u.Prompt), Candidates: int64(u.Candidates), Cached: int64(u.Cached),
				Thoughts: int64(u.Thoughts), ToolUse: int64(u.ToolUse), Total: int64(u.Total)}
		}
		for _, c := range vs.ToolCalls {
			step.ToolCalls = append(step.ToolCalls, ToolCall(c)) // the same fields, scoring's JSON names
		}
		for _, r := range vs.ToolResults {
			step.ToolResults = append(step.ToolResults, ToolResult(r))
		}
		step.Grounding = groundingOf(vs.Exchange)
		for _, h := range vs.HTTPCalls {
			step.ToolHTTP = append(step.ToolHTTP, ToolHTTPCall{Host: h.Host, Status: h.Status, Latency: h.Exchange.Response.Latency})
		}
		inv.ToolCalls = append(inv.ToolCalls, step.ToolCalls...)
		inv.ToolResults = append(inv.ToolResults, step.ToolResults...)
		if i != final && step.Text != "" {
			inv.IntermediateResponses = append(inv.IntermediateResponses, AuthoredText{Author: step.Agent, Text: step.Text})
		}
		inv.Steps = append(inv.Steps, step)
	}
	transferResults(&inv)
	return inv
}
