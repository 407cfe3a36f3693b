// The model's types: a run, its cassettes, sessions, invocations, steps.

package recorded

import (
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// Run is a folder of cassettes, sorted by name.
type Run struct {
	Cassettes []Cassette
}

// Cassette is one cassette's sessions and the requests that are not model
// calls.
type Cassette struct {
	Name string
	// File is relative to the cassette folder, with "/" separators.
	File string
	// Provenance is how the cassette was recorded; nil when it does not
	// say (recorded before adkproxy wrote it).
	Provenance *cassettes.Provenance
	Sessions   []Session
	// Other are the requests outside the sessions, in file order: other
	// endpoints (model lists, token counts) and tool exchanges filed
	// nowhere.
	Other []*cassettes.Exchange
}

// Session is one conversation, its invocations by id.
type Session struct {
	ID          int
	Invocations []Invocation
}

// Invocation is one user turn and the steps taken about it.
type Invocation struct {
	ID int
	// User is the user's text; Tag the client's X-Adkproxy-Invocation
	// header when it sent one.
	User string
	Tag  string
	// Agents are the distinct agents of the steps, in order of appearance.
	Agents []string
	// Steps are the invocation's model calls in file order (by every
	// agent, retries included).
	Steps []Step
	// HTTPCalls are the requests the invocation's tools made to other
	// hosts, in file order; each step's HTTPCalls are those filed under it.
	HTTPCalls []HTTPCall
	// Refused are the tool calls the user refused when ADK asked to
	// confirm them, read from the results ADK sent the model.
	Refused []Refusal
	// Confirmations are the user's answers to ADK's confirmation requests
	// as the client that answered reported them to the proxy (approvals
	// too, which the model wire does not show), filed on the calls.
	Confirmations []Confirmation
}

// Step is one model call, in file order within its invocation: what the
// wire says it did (wire.Step: the tool results it was sent, the tool
// calls and text it answered with, its finish reason, usage, model version
// and latency; ToolResults and ToolCalls never nil), and where and how it
// happened.
type Step struct {
	wire.Step
	// Number is the step's number in its invocation (its Place.Step): a
	// retry has the number of the step it retried.
	Number int
	Agent  string
	// Status is the HTTP status of the call.
	Status int
	// Model is the model that answered (the response's modelVersion, or
	// the one named in the request path).
	Model string
	// ErrorStatus is the status of a Gemini error body
	// ("RESOURCE_EXHAUSTED"), or "".
	ErrorStatus string
	// Reset: the connection broke during the response.
	Reset bool
	// HTTPCalls are the requests the step's tools made to other hosts (the
	// invocation's tool exchanges filed under this step, pointing into its
	// HTTPCalls), in file order. Never nil.
	HTTPCalls []*HTTPCall
	// Exchange is what the step was read from: its request holds what the
	// model was sent (generation config, system instruction, tools).
	Exchange *cassettes.Exchange
}

// HTTPCall is one request a tool made to another host through the forward
// proxy: `GET weather.example.com/v1/current?city=Paris → 200`.
type HTTPCall struct {
	cassettes.HTTPCall
	// MCP is the exchange read as MCP (server, method, tool, arguments,
	// result) when it is one: a stdio server relayed by adkproxy mcp, or
	// JSON-RPC over HTTP.
	MCP *wire.MCPCall
	// A2A is the exchange read as a call to a remote agent, when it is
	// one: an agent card fetch or an A2A JSON-RPC call.
	A2A *wire.A2ACall
	// Latency is from the request sent to the last byte of the answer.
	Latency time.Duration
	// Exchange is what the call was read from (its bodies).
	Exchange *cassettes.Exchange
}
