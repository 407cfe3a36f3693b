// A transcript's turns as ADK's Invocations: for the eval set written out
// (snake_case, intermediate_data as invocation_events) and for scoring.

package simulate

import (
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/scoring"
)

// invocation is one turn split as ADK's evaluation splits it.
type invocation struct {
	user         *genai.Content
	final        *adkapi.Event   // nil when the agent gave no final response
	intermediate []*adkapi.Event // agent events with a call, a result, text or data, the final one left out
	turn         *Turn
}

// isFinal is ADK's final-response test, for the events a run_sse turn
// returns: not partial, no function call or response.
func isFinal(ev *adkapi.Event) bool {
	if ev.Partial || ev.Content == nil {
		return false
	}
	for _, p := range ev.Content.Parts {
		if p != nil && (p.FunctionCall != nil || p.FunctionResponse != nil) {
			return false
		}
	}
	return true
}

func hasPayload(ev *adkapi.Event) bool {
	if ev.Content == nil {
		return false
	}
	for _, p := range ev.Content.Parts {
		if p != nil && (p.FunctionCall != nil || p.FunctionResponse != nil || p.Text != "" || p.InlineData != nil) {
			return true
		}
	}
	return false
}

// invocations splits the transcript's answered turns (a turn the agent
// gave no event for leaves no invocation, as in ADK).
func (t *Transcript) invocations() []invocation {
	var out []invocation
	for i := range t.Turns {
		turn := &t.Turns[i]
		var agent []*adkapi.Event
		for j := range turn.Events {
			if ev := &turn.Events[j]; ev.Author != "user" && !ev.Partial {
				agent = append(agent, ev)
			}
		}
		if len(turn.Events) == 0 {
			continue
		}
		inv := invocation{user: turn.User, turn: turn}
		for j := len(agent) - 1; j >= 0; j-- {
			if isFinal(agent[j]) {
				inv.final = agent[j]
				break
			}
		}
		for _, ev := range agent {
			if ev != inv.final && hasPayload(ev) {
				inv.intermediate = append(inv.intermediate, ev)
			}
		}
		out = append(out, inv)
	}
	return out
}

// text is the content's non-thought text, parts joined by "\n".
func text(c *genai.Content) string {
	if c == nil {
		return ""
	}
	var out []string
	for _, p := range c.Parts {
		if p != nil && !p.Thought && p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// scoringInvocations are the transcript's invocations for package scoring:
// tool calls and results in order, each model answer a step with its usage.
func (t *Transcript) scoringInvocations() []scoring.Invocation {
	var out []scoring.Invocation
	for i, inv := range t.invocations() {
		si := scoring.Invocation{ID: strconv.Itoa(i + 1), UserText: text(inv.user), Elapsed: inv.turn.Duration()}
		if inv.final != nil {
			si.FinalResponse = text(inv.final.Content)
		}
		for _, ev := range inv.turn.Events {
			if ev.Author == "user" || ev.Partial || ev.Content == nil {
				continue
			}
			for _, p := range ev.Content.Parts {
				switch {
				case p == nil:
				case p.FunctionCall != nil:
					si.ToolCalls = append(si.ToolCalls, cassettes.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
				case p.FunctionResponse != nil:
					si.ToolResults = append(si.ToolResults, cassettes.ToolResult{ID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Response: p.FunctionResponse.Response})
				}
			}
			if u, model, ok := eventUsage(&ev); ok {
				si.Steps = append(si.Steps, scoring.Step{Agent: ev.Author, Model: model, Status: 200, Usage: u, Text: text(ev.Content)})
			}
		}
		for _, ev := range inv.intermediate {
			if s := text(ev.Content); s != "" {
				si.IntermediateResponses = append(si.IntermediateResponses, scoring.AuthoredText{Author: ev.Author, Text: s})
			}
		}
		out = append(out, si)
	}
	return out
}

// eventUsage reads a model answer's usageMetadata from the raw event (the
// servers write it camelCase; ADK Python may write snake_case).
func eventUsage(ev *adkapi.Event) (scoring.Usage, string, bool) {
	var raw struct {
		Usage        *genai.GenerateContentResponseUsageMetadata `json:"usageMetadata"`
		UsageSnake   *genai.GenerateContentResponseUsageMetadata `json:"usage_metadata"`
		ModelVersion string                                      `json:"modelVersion"`
	}
	if len(ev.Raw) == 0 || json.Unmarshal(ev.Raw, &raw) != nil {
		return scoring.Usage{}, "", false
	}
	m := raw.Usage
	if m == nil {
		m = raw.UsageSnake
	}
	if m == nil {
		return scoring.Usage{}, "", false
	}
	return scoring.Usage{Prompt: int64(m.PromptTokenCount), Candidates: int64(m.CandidatesTokenCount),
		Cached: int64(m.CachedContentTokenCount), Thoughts: int64(m.ThoughtsTokenCount),
		ToolUse: int64(m.ToolUsePromptTokenCount), Total: int64(m.TotalTokenCount)}, raw.ModelVersion, true
}

// contentOut writes a content for the eval set, function call ids left
// out (they differ every run and ADK never compares them), absent
// arguments and responses as {}.
func contentOut(c *genai.Content) evalset.Content {
	out := evalset.Content{Parts: []evalset.Part{}}
	if c == nil {
		return out
	}
	out.Role = c.Role
	for _, p := range c.Parts {
		if p == nil {
			continue
		}
		op := evalset.Part{Text: p.Text, Thought: p.Thought}
		if p.FunctionCall != nil {
			op.FunctionCall = &cassettes.ToolCall{Name: p.FunctionCall.Name, Args: orEmpty(p.FunctionCall.Args)}
		}
		if p.FunctionResponse != nil {
			op.FunctionResponse = &cassettes.ToolResult{Name: p.FunctionResponse.Name, Response: orEmpty(p.FunctionResponse.Response)}
		}
		if p.InlineData != nil {
			op.InlineData = &evalset.Blob{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data}
		}
		out.Parts = append(out.Parts, op)
	}
	return out
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// evalCase is the transcript as a static-conversation eval case whose
// eval_id is the scenario's id, intermediate data as invocation_events.
func (t *Transcript) evalCase() evalset.EvalCase {
	c := evalset.EvalCase{EvalID: t.Case.ID, Conversation: []evalset.Invocation{}, SessionInput: t.Case.Input}
	if len(t.Case.Rubrics) > 0 {
		c.Rubrics = t.Case.Rubrics
	}
	for i, inv := range t.invocations() {
		oi := evalset.Invocation{InvocationID: t.Case.ID + "-" + strconv.Itoa(i+1), UserContent: contentOut(inv.user),
			IntermediateData: evalset.IntermediateData{Events: []evalset.Event{}}}
		if oi.UserContent.Role == "" {
			oi.UserContent.Role = genai.RoleUser
		}
		if inv.final != nil {
			f := contentOut(inv.final.Content)
			oi.FinalResponse = &f
		}
		for _, ev := range inv.intermediate {
			oi.IntermediateData.Events = append(oi.IntermediateData.Events, evalset.Event{Author: ev.Author, Content: contentOut(ev.Content)})
		}
		c.Conversation = append(c.Conversation, oi)
	}
	return c
}
