// The scoring data model: invocations, steps, sessions and cases going in,
// and the statuses and results coming out.

package scoring

import (
	"encoding/json"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/samplestat"
)

// Invocation is one user turn and what the agent did about it, in the shape
// ADK's evaluation compares (its Invocation): the user's text, every tool
// call made along the way by any agent, and the final response. Steps keep
// the model calls behind it for the run metrics; invocations read from an
// eval set have none.
type Invocation struct {
	ID       string
	UserText string
	// ToolCalls are every function call of the invocation, in order, across
	// agents (transfer_to_agent included, as ADK records it).
	ToolCalls   []cassettes.ToolCall
	ToolResults []cassettes.ToolResult
	// FinalResponse is the text of the last model answer that made no tool
	// call: what the user was told.
	FinalResponse string
	// IntermediateResponses are the texts of the other steps, with their agent.
	IntermediateResponses []AuthoredText
	Steps                 []Step
	// Elapsed is the invocation's wall time as the client that drove it
	// measured it (adkproxy simulate), 0 when unknown; the session's
	// duration then adds it up instead of the model calls' latencies.
	Elapsed time.Duration
	// Rubrics are the invocation's own rubrics from the eval set (ADK's
	// Invocation.rubrics, as JSON), for the rubric-based judged metrics.
	Rubrics json.RawMessage
	// ToolHTTP are the requests the invocation's tools made to other hosts
	// through the forward proxy, in file order.
	ToolHTTP []ToolHTTPCall
	// askedAt are the tool calls ADK asked the user to confirm, as the
	// recording shows them ({step, call} indexes into Steps): refused
	// ones, and answers a client reported.
	askedAt map[[2]int]bool
}

// AuthoredText is a piece of text and the agent that wrote it.
type AuthoredText struct {
	Author string `json:"author"`
	Text   string `json:"text"`
}

// Step is one model call behind an invocation.
type Step struct {
	Agent       string
	Model       string
	Status      int // HTTP status of the call
	Latency     time.Duration
	Usage       Usage
	ToolCalls   []cassettes.ToolCall
	ToolResults []cassettes.ToolResult
	Text        string
	// Grounding is the answer's groundingMetadata, summed up.
	Grounding Grounding
	// Instructions and Tools are the request's system instruction (its
	// texts) and tools array as recorded: what ADK's judges read as the
	// agent's developer instructions and tool declarations.
	Instructions string
	Tools        json.RawMessage
	// CallsJSON and ResultsJSON are ToolCalls' and ToolResults' recorded
	// functionCall and functionResponse objects, one for one (keys in wire
	// order, as ADK's judges show them); nil when not read from the wire.
	CallsJSON   []json.RawMessage
	ResultsJSON []json.RawMessage
}

// Grounding counts an answer's grounding chunks: those returned
// (groundingMetadata.groundingChunks) and those cited (distinct indices in
// groundingSupports[].groundingChunkIndices).
type Grounding struct {
	Chunks int `json:"chunks"`
	Cited  int `json:"cited"`
}

// ToolHTTPCall is one request a tool made to another host, with how long
// it took (from the request sent to the last byte of the answer).
type ToolHTTPCall struct {
	Host    string
	Status  int
	Latency time.Duration
}

// Usage is Gemini's usageMetadata. Prompt includes Cached.
type Usage struct {
	Prompt     int64 `json:"prompt"`
	Candidates int64 `json:"candidates"`
	Cached     int64 `json:"cached"`
	Thoughts   int64 `json:"thoughts"`
	ToolUse    int64 `json:"tool_use"`
	Total      int64 `json:"total"`
}

// Session is one recorded conversation.
type Session struct {
	Cassette    string
	ID          int
	Invocations []Invocation
	// RunAgents are the agents that answered model calls anywhere in the
	// run the session was read with, sorted: an agent used as a tool (ADK's
	// AgentTool) answers in a session of its own.
	RunAgents []string
}

// Case is what one evaluation compares: a recorded session (the actual
// invocations) against the expected ones, from an eval case or a golden run.
type Case struct {
	ID string
	// Session is the recorded session the case was paired with, or nil.
	Session  *Session
	Actual   []Invocation
	Expected []Invocation // nil when there is nothing to compare with
	// Failure, when set, makes the whole case FAILED with this reason
	// (for instance unequal invocation counts).
	Failure string
	// EvalSetID is the eval set the expected case came from ("" without
	// expectations).
	EvalSetID string
	// Scenario is the eval case's conversation_scenario (JSON) when it has
	// one instead of a conversation; custom metrics and the judged
	// metrics receive it.
	Scenario json.RawMessage
	// Rubrics are the eval case's own rubrics (JSON), applied to every
	// invocation by the rubric-based judged metrics, as ADK copies
	// EvalCase.rubrics onto every actual invocation.
	Rubrics json.RawMessage
	// Run is the case's run (from 1) when the eval set was played Runs
	// times (PairRuns); 0 otherwise. Evaluate pools the runs of a case into
	// one result, whose Case holds every run's invocations, in run order,
	// and RunSessions the session of each run.
	Run, Runs   int
	RunSessions []*Session
	// SessionInput is the eval case's session_input as JSON (nil without
	// one, checked when the eval set was read): the user and state of the
	// session, for the result's session_details and user_id.
	SessionInput json.RawMessage
	// FinalState is the session's state at the end as the agent's server
	// returned it (adkproxy simulate captures it), as JSON; nil when not
	// captured.
	FinalState json.RawMessage
	// sessionName is how the pairing names Session in its messages.
	sessionName string
}

// EvalStatus is ADK's evaluation status; the numbers are ADK's JSON values.
type EvalStatus int

// The statuses, as ADK numbers them.
const (
	Passed       EvalStatus = 1
	Failed       EvalStatus = 2
	NotEvaluated EvalStatus = 3
)

// String is ADK's name of the status (PASSED, FAILED, NOT_EVALUATED).
func (s EvalStatus) String() string {
	switch s {
	case Passed:
		return "PASSED"
	case Failed:
		return "FAILED"
	case NotEvaluated:
		return "NOT_EVALUATED"
	}
	return "UNKNOWN"
}

// InvocationScore is a metric's verdict on one invocation.
type InvocationScore struct {
	Index  int // from 0
	Score  *float64
	Status EvalStatus
	// Reason explains a score below 1 (or why there is none), e.g.
	// `invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")`.
	Reason string
	// Details are the metric's own details for this invocation (an LLM
	// judge's samples), written into the JSON output's details.
	Details map[string]any
}

// MetricResult is one metric's verdict on one case.
type MetricResult struct {
	Metric string
	// Score is nil when the metric could not be evaluated.
	Score *float64
	// Threshold is the minimum passing score; for cost- and latency-like
	// metrics configured with {"max": X} it is the maximum and Max is true.
	Threshold     float64
	Max           bool
	Status        EvalStatus
	PerInvocation []InvocationScore
	// Reason explains a FAILED or NOT_EVALUATED verdict.
	Reason  string
	Details map[string]any
	// Notes are shown below the metric by the table and markdown formats
	// whatever its status (an LLM judge's majority and rationale per
	// invocation).
	Notes []string
	// Informational is set for a metric reported without a threshold: its
	// Status is NOT_EVALUATED (see Criterion.Informational) and its Score
	// is just information.
	Informational bool
	// Criterion is the criterion as ADK writes it in a result file
	// (EvalMetricResult.criterion); nil when Informational.
	Criterion map[string]any
}

// Float returns a pointer to f, for scores.
func Float(f float64) *float64 { return &f }

// CaseResult is every metric's verdict on one case. Status is ADK's rule:
// any FAILED → FAILED, else any PASSED → PASSED, else NOT_EVALUATED; a case
// with a Failure is FAILED whatever its metrics say.
type CaseResult struct {
	Case    *Case
	Metrics []MetricResult
	Status  EvalStatus
	// Samples sums up the verdicts of the case's runs or samples (record
	// --samples): pass@1, pass@k, pass^k, flip rate, Wilson interval, flaky.
	// N == 0 for a case played once.
	Samples samplestat.Summary
}

// Result is a scoring run: what ADK calls an EvalSetResult.
type Result struct {
	EvalSetID string
	Cases     []CaseResult
	// Unpaired lists eval cases and recorded sessions that could not be
	// paired, each with the reason; they are reported, never dropped.
	Unpaired []string
	// Label names the run (score --label: "baseline", "exp_v2"); every
	// output format writes it.
	Label string
	// App is the agent's app name the result is written for (score
	// --history: its folder's name); session_details name it, else the
	// eval case's session_input app_name.
	App string
	// RequireAll makes ResultStatus demand that every criterion PASSED,
	// not only every case (adkproxy score --require-all).
	RequireAll bool
	// ADKVersion is the ADK release whose rules scored the result
	// (Settings.ADKVersion, set by Evaluate): the JSON result is written
	// in the shape that release reads.
	ADKVersion string
}
