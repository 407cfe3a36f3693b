package scoring

import (
	"fmt"
	"sort"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// SessionsOf turns cassettes into the sessions they recorded, sorted by
// cassette name and session id. Version 1 cassettes are organised first.
// Requests that are not model calls take no part.
func SessionsOf(cs map[string]*cassettes.Cassette) []Session {
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Session
	m := matcher.Default()
	for _, name := range names {
		c := cs[name]
		m.Organise(c.Exchanges)
		bySession := map[int]map[int][]*cassettes.Exchange{}
		for _, x := range c.Exchanges {
			p := x.Place
			if p == nil {
				continue
			}
			if bySession[p.Session] == nil {
				bySession[p.Session] = map[int][]*cassettes.Exchange{}
			}
			bySession[p.Session][p.Invocation] = append(bySession[p.Session][p.Invocation], x)
		}
		for _, sid := range sortedKeys(bySession) {
			s := Session{Cassette: name, ID: sid}
			for _, iid := range sortedKeys(bySession[sid]) {
				s.Invocations = append(s.Invocations, invocationOf(fmt.Sprintf("%s/%d/%d", name, sid, iid), bySession[sid][iid]))
			}
			out = append(out, s)
		}
	}
	return out
}

// invocationOf reads an invocation from its steps, in recorded order.
func invocationOf(id string, steps []*cassettes.Exchange) Invocation {
	inv := Invocation{ID: id}
	final := -1
	for _, x := range steps {
		if inv.UserText == "" {
			inv.UserText = x.Place.User
		}
		t := cassettes.TrajectoryOf(x)
		step := Step{Agent: x.Place.Agent, Model: t.ModelVersion, Status: x.Response.Status, Latency: t.Latency, Text: t.Text}
		if step.Model == "" {
			step.Model = modelOfPath(x.Request.Path)
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

// modelOfPath reads the model from a request path, for responses without
// a modelVersion: .../models/gemini-2.5-flash:generateContent → gemini-2.5-flash.
func modelOfPath(path string) string {
	_, rest, ok := strings.Cut(path, "models/")
	if !ok {
		return ""
	}
	model, _, _ := strings.Cut(rest, ":")
	return model
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
