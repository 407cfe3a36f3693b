// The recorded data itself: an Exchange (request, response, SSE events and
// its place in the conversation) and the Cassette that lists them, the
// types every other package passes around.

package cassettes

import (
	"net/http"
	"time"
)

// Exchange is one request and the response it got: the unit that the proxy
// produces, a cassette stores, the matcher compares and the scorer reads.
type Exchange struct {
	Request  Request
	Response Response
	// Place is where a model call belongs in the conversation; nil for
	// other requests (countTokens, embeddings, model lists...) and for
	// exchanges read from version 1 files, until they are organised.
	Place *Place
	// Live is set for a Live API connection (live.go): Request and
	// Response are then its WebSocket upgrade.
	Live *Live `json:",omitempty"`
	// Confirmations are the user's answers to ADK's tool confirmation
	// requests that this model call's request carried the outcome of
	// (confirmation.go); ADK never sends them to the model.
	Confirmations []Confirmation `json:",omitempty"`
}

// Place locates a model call: the session, the invocation (one user turn
// and every model and tool step it caused, across agents), the step (the
// call's number in the invocation, from 0, across its agents), and the
// agent that made it.
type Place struct {
	Session    int
	Invocation int
	// Tag is the invocation id a client sent in X-Adkproxy-Invocation.
	Tag string
	// User is the text of the user turn that started the invocation.
	User  string
	Step  int
	Agent string
}

// Request is what a client sent, with secrets already removed.
type Request struct {
	// Scheme and Host are set only for a tool exchange (see IsTool): a
	// request to a host other than Gemini's, intercepted by the forward
	// proxy. Host is lower-case, without the scheme's default port.
	Scheme string `json:",omitempty"`
	Host   string `json:",omitempty"`
	Method string
	Path   string
	// Query is the raw query string without auth parameters, as sent.
	Query  string
	Header http.Header
	Body   []byte
	// BodyFile names the side file (sha256-<hex>, in the folder NAME.files/
	// beside the cassette; see docs/cassette-format.md) the cassette keeps
	// Body in instead of inline; Body still holds the bytes in memory.
	BodyFile string `json:",omitempty"`
}

// Response is what the upstream answered. A streamed (SSE) response keeps
// its events one by one in Events and leaves Body nil.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// BodyFile: as Request.BodyFile.
	BodyFile string `json:",omitempty"`
	Events   []Event
	End      End
	// Latency is the time from sending the request to the last byte.
	Latency time.Duration
}

// Streamed reports whether the response is a list of SSE events.
func (r *Response) Streamed() bool { return r.Events != nil }

// Event is one server-sent event exactly as it came over the wire, separator
// included, and how long after the previous event (or the headers) it came.
type Event struct {
	Data  []byte
	After time.Duration
}

// End says how a response body ended, so replay can end it the same way.
type End string

const (
	// EndComplete: the body was read to its end.
	EndComplete End = "complete"
	// EndEOF: the connection closed in the middle of an event (the last
	// event has no separator), as when an error body follows a stream.
	EndEOF End = "eof"
	// EndReset: reading the body failed; replay cuts the connection after
	// the recorded bytes.
	EndReset End = "reset"
)

// Cassette is a named list of exchanges in the order they completed.
type Cassette struct {
	Name string
	// Provenance says how the cassette was recorded; nil for a cassette
	// written before adkproxy recorded it, or built in memory.
	Provenance *Provenance
	Exchanges  []*Exchange
	// File is the path the cassette was loaded from ("" when built in
	// memory). It is not stored in the file.
	File string
	// Warnings say what Load left out (an incomplete journal); they are
	// for the log, and not stored either.
	Warnings []string
	// Trajectories reads a step's trajectory from its bodies when the
	// cassette is written (adkproxy's reader is internal/wire's StepOf);
	// nil writes each trajectory empty, with only its HTTP calls. It is
	// not stored either.
	Trajectories func(*Exchange) Trajectory
}

// Provenance is how a cassette was recorded, for people and for ls
// --stale: never a secret, and never a host the user did not choose (the
// upstream is named only by its kind).
type Provenance struct {
	// RecordedAt is when the recording run wrote the cassette, in UTC to
	// the second.
	RecordedAt time.Time
	// Adkproxy is the version of the adkproxy that recorded it.
	Adkproxy string
	// Upstream are the kinds of API the model calls went to: "gemini-api",
	// "vertex-ai", "local" (a server on this machine, such as adkproxy
	// fake) or "other".
	Upstream []string
	// Clients and Frameworks are the name/version tokens of the requests'
	// User-Agent and X-Goog-Api-Client headers (google-genai-sdk/1.2.3,
	// gl-go/1.26); Frameworks are the agent frameworks' (google-adk/1.7.0).
	Clients    []string
	Frameworks []string
	// Models maps each model asked for (the request path's) to the
	// modelVersions its answers named, in order of first appearance.
	Models map[string][]string
}
