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

// Report is what a replay or recording did with every request, the JSON
// written by --report (proxy/report.schema.json describes it).
type Report struct {
	Mode     string              `json:"mode"`
	Counts   map[OutcomeKind]int `json:"counts"`
	Outcomes []Outcome           `json:"outcomes"`
	// Truncated is how many outcomes were counted but not listed.
	Truncated int `json:"truncated,omitempty"`
	// Faults lists the faults replay injected, and those no request
	// reached (proxy's Config.Faults).
	Faults []FaultOutcome `json:"faults,omitempty"`
}

// FaultOutcome is one fault of the run: where it was injected and whether
// the agent recovered (a later request got the recording the fault stood
// in for), or, with Injected false, a fault no request reached.
type FaultOutcome struct {
	Fault      string `json:"fault"`
	Injected   bool   `json:"injected"`
	Recovered  bool   `json:"recovered"`
	Call       int    `json:"call,omitempty"` // the model call it hit, counted from 1
	Cassette   string `json:"cassette,omitempty"`
	Host       string `json:"host,omitempty"`
	Method     string `json:"method,omitempty"`
	Path       string `json:"path,omitempty"`
	Session    int    `json:"session,omitempty"`
	Invocation int    `json:"invocation,omitempty"`
	Step       *int   `json:"step,omitempty"`
	User       string `json:"user,omitempty"`
	Agent      string `json:"agent,omitempty"`
}
