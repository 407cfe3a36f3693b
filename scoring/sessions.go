package scoring

import (
	"fmt"
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/conversation"
)

// SessionsOf turns cassettes into the sessions they recorded, sorted by
// cassette name and session id (see conversation.Group). Requests that are
// not model calls take no part.
func SessionsOf(cs map[string]*cassettes.Cassette) []Session {
	var out []Session
	for _, name := range slices.Sorted(maps.Keys(cs)) {
		sessions, _ := conversation.Group(cs[name])
		for _, g := range sessions {
			s := Session{Cassette: name, ID: g.ID}
			for _, inv := range g.Invocations {
				s.Invocations = append(s.Invocations, invocationOf(fmt.Sprintf("%s/%d/%d", name, g.ID, inv.ID), inv))
			}
			out = append(out, s)
		}
	}
	return out
}

// invocationOf reads an invocation from its steps, in recorded order.
func invocationOf(id string, grouped conversation.Invocation) Invocation {
	inv := Invocation{ID: id, UserText: grouped.User}
	final := -1
	for _, x := range grouped.Steps {
		t := cassettes.TrajectoryOf(x)
		step := Step{Agent: x.Place.Agent, Model: t.ModelVersion, Status: x.Response.Status, Latency: t.Latency, Text: t.Text}
		if step.Model == "" {
			step.Model = conversation.ModelOfPath(x.Request.Path)
		}
		if u := t.Usage; u != nil {
			step.Usage = Usage{Prompt: int64(u.PromptTokenCount), Candidates: int64(u.CandidatesTokenCount),
				Cached: int64(u.CachedContentTokenCount), Thoughts: int64(u.ThoughtsTokenCount),
				ToolUse: int64(u.ToolUsePromptTokenCount), Total: int64(u.TotalTokenCount)}
		}
		for _, c := range t.ToolCalls {
			step.ToolCalls = append(step.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Args: c.Args})
		}
		for _, r := range t.ToolResults {
			step.ToolResults = append(step.ToolResults, ToolResult{ID: r.ID, Name: r.Name, Response: r.Response})
		}
		inv.ToolCalls = append(inv.ToolCalls, step.ToolCalls...)
		inv.ToolResults = append(inv.ToolResults, step.ToolResults...)
		if step.Text != "" && len(step.ToolCalls) == 0 {
			final = len(inv.Steps)
		}
		inv.Steps = append(inv.Steps, step)
	}
	for i, s := range inv.Steps {
		switch {
		case i == final:
			inv.FinalResponse = s.Text
		case s.Text != "":
			inv.IntermediateResponses = append(inv.IntermediateResponses, AuthoredText{Author: s.Agent, Text: s.Text})
		}
	}
	return inv
}
