// What drift reports: each change's kind, what it is, and how severe.

package drift

// Kind is which of the three sorts a change is.
type Kind string

const (
	// Request: the agent's own request changed (its code moved): a
	// re-record is due, the API is not to blame.
	Request Kind = "request"
	// Shape: the API's answer has a field added, removed or of another type.
	Shape Kind = "shape"
	// Behaviour: the model did something else: other tool calls, another
	// finish reason, a response text below the ROUGE threshold, another
	// modelVersion, another status, a step more or less.
	Behaviour Kind = "behaviour"
)

// Kinds in the order reports list them.
var Kinds = []Kind{Request, Shape, Behaviour}

// Severity ranks changes; --fail-on names the least that fails.
type Severity string

const (
	Low    Severity = "low"
	Medium Severity = "medium"
	High   Severity = "high"
)

// Severities from least to most severe.
var Severities = []Severity{Low, Medium, High}

func (s Severity) rank() int {
	for i, v := range Severities {
		if v == s {
			return i
		}
	}
	return -1
}

// What a change is, within its kind.
const (
	WhatRequestField = "request_field" // request: a field of the request differs
	WhatFieldAdded   = "field_added"   // shape, low: the answer has a field the recording lacks
	WhatFieldRemoved = "field_removed" // shape, high: the recording's field is gone
	WhatTypeChanged  = "type_changed"  // shape, high: a field holds another JSON type
	WhatToolCalls    = "tool_calls"    // behaviour, high: other tool calls (names or arguments)
	WhatFinishReason = "finish_reason" // behaviour, medium
	WhatText         = "response_text" // behaviour, medium: ROUGE-1 F below the threshold
	WhatModelVersion = "model_version" // behaviour, medium: another model answered
	WhatStatus       = "status"        // behaviour, high: another HTTP status
	WhatStepAdded    = "step_added"    // behaviour, high: the live run made a model call more
	WhatStepRemoved  = "step_removed"  // behaviour, high: the live run made a model call less
	WhatNotRun       = "not_run"       // behaviour, high: a recorded cassette, session or invocation the live run did not reach
	WhatNotRecorded  = "not_recorded"  // behaviour, high: the live run made one the folder does not hold
)

// Change is one thing that drifted, at its place: the cassette, session,
// invocation (ids from 1) and step (from 0; -1 for a whole invocation).
type Change struct {
	Kind       Kind     `json:"kind"`
	What       string   `json:"what"`
	Severity   Severity `json:"severity"`
	Cassette   string   `json:"cassette"`
	Session    int      `json:"session"`
	Invocation int      `json:"invocation"`
	Step       int      `json:"step"`
	Agent      string   `json:"agent,omitempty"`
	// Path names the field: a request's JSON path, an answer's
	// (candidates[].content.role, usageMetadata.trafficType).
	Path string `json:"path,omitempty"`
	// Recorded and Live are the two values, as short text.
	Recorded string `json:"recorded,omitempty"`
	Live     string `json:"live,omitempty"`
}
