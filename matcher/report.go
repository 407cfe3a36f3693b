package matcher

// OutcomeKind is what happened to a request: one of the Outcome
// constants below.
type OutcomeKind string

// Outcome kinds, one per request (and one per recording never requested).
const (
	// OutcomeMatched: answered from the recording of this exact request.
	OutcomeMatched OutcomeKind = "matched"
	// OutcomeMismatched: a recording exists at this request's place in the
	// conversation (same agent, invocation and step) but the request
	// differs from it; Diffs says how. Lenient replay served it anyway.
	OutcomeMismatched OutcomeKind = "mismatched"
	// OutcomeUnmatched: nothing was recorded at this request's place.
	OutcomeUnmatched OutcomeKind = "unmatched"
	// OutcomeUnused: a recording that no request asked for: the agent
	// stopped early or skipped a step.
	OutcomeUnused OutcomeKind = "unused"
	// OutcomeRecorded: forwarded upstream and recorded.
	OutcomeRecorded OutcomeKind = "recorded"
	// OutcomeForwarded: forwarded upstream, not recorded (passthrough).
	OutcomeForwarded OutcomeKind = "forwarded"
)

// Outcome is what happened to one request, where it sits in the
// conversation and, for a mismatch, how it differs from the recording.
type Outcome struct {
	Outcome    OutcomeKind  `json:"outcome"`
	Cassette   string       `json:"cassette"`
	Scheme     string       `json:"scheme,omitempty"` // tool requests only
	Host       string       `json:"host,omitempty"`   // tool requests only
	Method     string       `json:"method"`
	Path       string       `json:"path"`
	Session    int          `json:"session,omitempty"`
	Invocation int          `json:"invocation,omitempty"`
	User       string       `json:"user,omitempty"`
	Step       *int         `json:"step,omitempty"`
	Agent      string       `json:"agent,omitempty"`
	Served     bool         `json:"served,omitempty"`
	Diffs      []Difference `json:"diffs,omitempty"`
	Message    string       `json:"message,omitempty"`
	// Conformance is the key a model call was looked up by in
	// conformance-keyed replay, and Findings how its body differs from the
	// recording it was answered with, grouped.
	Conformance *ConformanceKey `json:"conformance,omitempty"`
	Findings    []Finding       `json:"findings,omitempty"`
}
