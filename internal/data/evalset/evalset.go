// Package evalset owns ADK's eval-set JSON: the EvalSet, EvalCase and
// Invocation documents, their content, parts and the two forms of
// intermediate data, one set of types that adkproxy both reads and
// writes. The reader takes ADK's EvalSet in snake_case or camelCase and
// the list formats of older ADK releases, from a file or a folder, with
// errors naming the file and the JSON path of the field, and selects eval
// cases as adk eval does ("PATH:ID,ID…"). The writer writes snake_case
// keys, a set's and a case's unset fields left out as ADK's local
// eval-set files leave them, an invocation's final_response null when
// there is none. scoring's expectations, export and results, adkproxy
// drive and simulate, and the scenario cases all go through it, so every
// eval set is read one way and written in one shape.
package evalset

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// EvalSet is ADK's EvalSet.
type EvalSet struct {
	EvalSetID         string     `json:"eval_set_id"`
	Name              string     `json:"name,omitempty"`
	Description       string     `json:"description,omitempty"`
	EvalCases         []EvalCase `json:"eval_cases"`
	CreationTimestamp float64    `json:"creation_timestamp"`
	// File is where the reader read the set from (not written).
	File string `json:"-"`
}

// EvalCase is ADK's EvalCase: a static conversation, or (when Scenario is
// set) a conversation_scenario for a simulated user.
type EvalCase struct {
	EvalID       string
	Conversation []Invocation
	// Scenario is the conversation_scenario object (the reader's: a
	// json.RawMessage, checked as ADK's ConversationScenario).
	Scenario any
	// SessionInput is the session_input object; nil for none (the
	// reader's: a json.RawMessage, checked as ADK's SessionInput).
	SessionInput any
	// Rubrics are the case's rubrics as JSON; nil for none.
	Rubrics           json.RawMessage
	CreationTimestamp float64
}

// MarshalJSON writes the case in ADK's field order, conversation ([] when
// empty) unless it has a scenario.
func (c EvalCase) MarshalJSON() ([]byte, error) {
	type static struct {
		EvalID            string          `json:"eval_id"`
		Conversation      []Invocation    `json:"conversation"`
		SessionInput      any             `json:"session_input,omitempty"`
		Rubrics           json.RawMessage `json:"rubrics,omitempty"`
		CreationTimestamp float64         `json:"creation_timestamp"`
	}
	type scenario struct {
		EvalID            string          `json:"eval_id"`
		Scenario          any             `json:"conversation_scenario"`
		SessionInput      any             `json:"session_input,omitempty"`
		Rubrics           json.RawMessage `json:"rubrics,omitempty"`
		CreationTimestamp float64         `json:"creation_timestamp"`
	}
	if c.Scenario != nil {
		return textfmt.CompactJSON(scenario{c.EvalID, c.Scenario, c.SessionInput, c.Rubrics, c.CreationTimestamp})
	}
	conv := c.Conversation
	if conv == nil {
		conv = []Invocation{}
	}
	return textfmt.CompactJSON(static{c.EvalID, conv, c.SessionInput, c.Rubrics, c.CreationTimestamp})
}

// Invocation is ADK's Invocation. final_response is null when there is
// none, as ADK's model_dump_json writes it and custom metrics read it.
type Invocation struct {
	InvocationID      string           `json:"invocation_id"`
	UserContent       Content          `json:"user_content"`
	FinalResponse     *Content         `json:"final_response"`
	IntermediateData  IntermediateData `json:"intermediate_data"`
	CreationTimestamp float64          `json:"creation_timestamp"`
	// Rubrics are the invocation's own rubrics as JSON; nil for none.
	Rubrics json.RawMessage `json:"rubrics,omitempty"`
}

// IntermediateData is an invocation's steps in one of ADK's two forms:
// the documented one (tool_uses, tool_responses, intermediate_responses,
// each [] when empty) or, when Events is not nil, newer ADK's
// invocation_events.
type IntermediateData struct {
	ToolUses      []cassettes.ToolCall
	ToolResponses []cassettes.ToolResult
	// IntermediateResponses are [author, parts] pairs.
	IntermediateResponses []AuthoredParts
	Events                []Event
}

// AuthoredParts is one intermediate response: who wrote it, and its parts;
// its JSON is ADK's [author, [parts…]] pair.
type AuthoredParts struct {
	Author string
	Parts  []Part
}

// MarshalJSON writes the [author, parts] pair.
func (a AuthoredParts) MarshalJSON() ([]byte, error) {
	parts := a.Parts
	if parts == nil {
		parts = []Part{}
	}
	return textfmt.CompactJSON([2]any{a.Author, parts})
}

// MarshalJSON writes the form the data is in.
func (d IntermediateData) MarshalJSON() ([]byte, error) {
	if d.Events != nil {
		return textfmt.CompactJSON(struct {
			Events []Event `json:"invocation_events"`
		}{d.Events})
	}
	return textfmt.CompactJSON(struct {
		ToolUses              []cassettes.ToolCall   `json:"tool_uses"`
		ToolResponses         []cassettes.ToolResult `json:"tool_responses"`
		IntermediateResponses []AuthoredParts        `json:"intermediate_responses"`
	}{orEmpty(d.ToolUses), orEmpty(d.ToolResponses), orEmpty(d.IntermediateResponses)})
}

// Event is one of invocation_events: an agent's content.
type Event struct {
	Author  string  `json:"author"`
	Content Content `json:"content"`
}

// Content is genai's Content as ADK writes it.
type Content struct {
	Parts []Part `json:"parts"`
	Role  string `json:"role,omitempty"`
}

// Text is ADK's text of a content: its non-empty text parts joined by
// newlines.
func (c Content) Text() string {
	var texts []string
	for _, p := range c.Parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// TextContent is a content of one text part.
func TextContent(role, text string) Content {
	return Content{Parts: []Part{{Text: text}}, Role: role}
}

// Part is genai's Part as ADK writes it (snake_case). A function call's
// and response's ids are left out by the writers: they differ every run
// and ADK never compares them.
type Part struct {
	Text             string                `json:"text,omitempty"`
	Thought          bool                  `json:"thought,omitempty"`
	FunctionCall     *cassettes.ToolCall   `json:"function_call,omitempty"`
	FunctionResponse *cassettes.ToolResult `json:"function_response,omitempty"`
	InlineData       *Blob                 `json:"inline_data,omitempty"`
}

// Blob is inline data.
type Blob struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// RawJSON is v as JSON: itself when it is a json.RawMessage (as the
// reader leaves a case's scenario and session input), nil for nil.
func RawJSON(v any) json.RawMessage {
	switch v := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	}
	raw, _ := json.Marshal(v)
	return raw
}
