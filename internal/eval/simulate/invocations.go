// A transcript's turns as ADK's Invocations: for the eval set written out
// (snake_case, intermediate_data as invocation_events) and for scoring.

package simulate

import (
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/adk/api"
	"github.com/adkproxy/adkproxy/scoring"
)

// invocation is one turn split as ADK's evaluation splits it.
type invocation struct {
	user         *genai.Content
	final        *api.Event   // nil when the agent gave no final response
	intermediate []*api.Event // agent events with a call, a result, text or data, the final one left out
	turn         *Turn
}

// isFinal is ADK's final-response test, for the events a run_sse turn
// returns: not partial, no function call or response.
func isFinal(ev *api.Event) bool {
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

func hasPayload(ev *api.Event) bool {
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
		var agent []*api.Event
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
func eventUsage(ev *api.Event) (scoring.Usage, string, bool) {
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

// The eval set written out: ADK's EvalSet / EvalCase / Invocation, with
// snake_case keys and no ids or timestamps that change from run to run.
type outEvalSet struct {
	EvalSetID         string        `json:"eval_set_id"`
	Name              string        `json:"name"`
	EvalCases         []outEvalCase `json:"eval_cases"`
	CreationTimestamp float64       `json:"creation_timestamp"`
}

type outEvalCase struct {
	EvalID            string          `json:"eval_id"`
	Conversation      []outInvocation `json:"conversation"`
	SessionInput      json.RawMessage `json:"session_input,omitempty"`
	Rubrics           json.RawMessage `json:"rubrics,omitempty"`
	CreationTimestamp float64         `json:"creation_timestamp"`
}

type outInvocation struct {
	InvocationID      string          `json:"invocation_id"`
	UserContent       outContent      `json:"user_content"`
	FinalResponse     *outContent     `json:"final_response,omitempty"`
	IntermediateData  outIntermediate `json:"intermediate_data"`
	CreationTimestamp float64         `json:"creation_timestamp"`
}

type outIntermediate struct {
	InvocationEvents []outEvent `json:"invocation_events"`
}

type outEvent struct {
	Author  string     `json:"author"`
	Content outContent `json:"content"`
}

type outContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []outPart `json:"parts"`
}

type outPart struct {
	Text             string       `json:"text,omitempty"`
	Thought          bool         `json:"thought,omitempty"`
	FunctionCall     *outCall     `json:"function_call,omitempty"`
	FunctionResponse *outResponse `json:"function_response,omitempty"`
	InlineData       *outBlob     `json:"inline_data,omitempty"`
}

type outCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type outResponse struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type outBlob struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// contentOut writes a content for the eval set, function call ids left
// out (they differ every run and ADK never compares them).
func contentOut(c *genai.Content) outContent {
	out := outContent{Parts: []outPart{}}
	if c == nil {
		return out
	}
	out.Role = c.Role
	for _, p := range c.Parts {
		if p == nil {
			continue
		}
		op := outPart{Text: p.Text, Thought: p.Thought}
		if p.FunctionCall != nil {
			op.FunctionCall = &outCall{Name: p.FunctionCall.Name, Args: orEmpty(p.FunctionCall.Args)}
		}
		if p.FunctionResponse != nil {
			op.FunctionResponse = &outResponse{Name: p.FunctionResponse.Name, Response: orEmpty(p.FunctionResponse.Response)}
		}
		if p.InlineData != nil {
			op.InlineData = &outBlob{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data}
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
// eval_id is the scenario's id.
func (t *Transcript) evalCase() outEvalCase {
	c := outEvalCase{EvalID: t.Case.ID, Conversation: []outInvocation{}, Rubrics: t.Case.Rubrics}
	c.SessionInput, _ = json.Marshal(t.Case.Input)
	for i, inv := range t.invocations() {
		oi := outInvocation{InvocationID: t.Case.ID + "-" + strconv.Itoa(i+1), UserContent: contentOut(inv.user),
			IntermediateData: outIntermediate{InvocationEvents: []outEvent{}}}
		if oi.UserContent.Role == "" {
			oi.UserContent.Role = genai.RoleUser
		}
		if inv.final != nil {
			f := contentOut(inv.final.Content)
			oi.FinalResponse = &f
		}
		for _, ev := range inv.intermediate {
			oi.IntermediateData.InvocationEvents = append(oi.IntermediateData.InvocationEvents, outEvent{Author: ev.Author, Content: contentOut(ev.Content)})
		}
		c.Conversation = append(c.Conversation, oi)
	}
	return c
}
