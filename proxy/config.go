// The Server's configuration: its fields, their defaults, and the hints
// the program around the server adds to failure messages.

package proxy

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/matcher"
)

// DefaultMaxBody is the largest request or response body accepted (64 MiB).
const DefaultMaxBody = 64 << 20

// defaultDir is the cassette folder of a replay whose Config names none,
// the folder go test runs a package's tests in having testdata beside it.
const defaultDir = "testdata/cassettes"

// Config configures a Server. The zero Config is a valid, strict replay of
// the cassettes in ./testdata/cassettes, each read when a request first
// names it (with CheckAll, all of them by New); the Server never contacts
// an upstream. Every field's zero value is a default stated on the field.
// The hooks (BeforeSave, BeforeReplay, Passthrough, Match) change what one
// stage does, in the manner of go-vcr's recorder hooks. New refuses a
// Config whose fields contradict each other (such as Lenient with a record
// mode) with an error naming the field.
type Config struct {
	// Mode is what the Server does with each request; zero is ModeReplay.
	Mode Mode
	// Lenient, in ModeReplay only, serves the recording at a request's
	// place even when the request differs from it, reporting the
	// difference as a warning (Outcome.Served); the run passes. Zero
	// (false) is strict: such a request gets a 400 error and fails the run.
	Lenient bool
	// Dir is the cassette folder. Empty means testdata/cassettes for
	// ModeReplay; the modes that write cassettes refuse an empty Dir
	// rather than write into the working folder.
	Dir string
	// CheckAll (replay only) reads every cassette in Dir when the server
	// is made, so a cassette that does not load fails New before any test
	// runs, and recordings of cassettes no request opened count as unused.
	// The zero value opens a cassette when a request first names it: a
	// run pays only for its own cassettes, and one broken cassette fails
	// only the requests for it.
	CheckAll bool
	// DefaultCassette is the cassette of requests that name none (by
	// HeaderCassette or HeaderTestName); empty means "default". The
	// control API can change it while serving.
	DefaultCassette string
	// Sample, when above zero, files every cassette name NAME under the
	// name of its sample, NAME@Sample (file NAME@Sample.yaml): record
	// --samples K runs a command K times with Sample 1..K, and replay
	// --sample N answers from sample N. Zero uses the names as given.
	Sample int
	// Matcher decides which fields matching ignores (--ignore); nil means
	// matcher.Default().
	Matcher *matcher.Matcher
	// ConformanceKeys makes replay answer a model call by its conformance
	// key, as ADK's ReplayPlugin keys it (user message, agent, that
	// agent's call index), whatever its body says; how the body differs is
	// reported in Outcome.Findings, not as a failure. Other requests are
	// matched as usual. It is for cassettes imported from ADK's conformance
	// corpus, replayed to an ADK of another language. Zero (false) matches
	// by method, path, query and canonical body. Not for ModeRecord or
	// ModePassthrough, which replay nothing.
	ConformanceKeys bool
	// Upstream is the Gemini API base URL requests are forwarded to; nil
	// means DefaultUpstream. Replay ignores it and never contacts it.
	Upstream *url.URL
	// VertexUpstream, when set, receives every Vertex AI path; nil means
	// the host is derived from the location in the path
	// (LOCATION-aiplatform.googleapis.com).
	VertexUpstream *url.URL
	// Transport sends upstream requests; nil means one made from ConnectTo
	// and UpstreamRoots with Limits.UpstreamHeaderTimeout. A replay server
	// drops it and builds none, so it has no way to reach the upstream.
	Transport http.RoundTripper
	// ConnectTo reroutes upstream connections (--connect-to), for Gemini
	// and tool hosts alike; nil dials each host by its name.
	ConnectTo []ConnectTo
	// UpstreamRoots are the certificates upstream servers may chain to
	// (--upstream-ca); nil means the system roots.
	UpstreamRoots *x509.CertPool
	// Forward, when set, makes Handler also an HTTP forward proxy that
	// intercepts HTTPS; nil serves base-URL requests only.
	Forward *ForwardProxy
	// AllowRepeats keeps serving the last recorded answer once a request's
	// recordings are used up; zero (false) treats such a request as a miss.
	AllowRepeats bool
	// ReplayTiming sleeps the recorded delays before each replayed answer
	// and stream event; zero (false) answers at once.
	ReplayTiming bool
	// Clock is what ReplayTiming waits on; nil means real time. Tests give
	// their own to see the waits without spending them.
	Clock Clock
	// Version is the adkproxy version a recorded cassette's provenance
	// names; "" means the one Go's build information gives.
	Version string
	// Redactor removes secrets (API keys, tokens, the values of --redact)
	// from what is saved; nil means cassettes.NewRedactor() with no extra
	// values.
	Redactor *cassettes.Redactor
	// Logger receives what the Server has to say (a record per failed or
	// mismatched request, cassettes written, reloads); nil discards it.
	Logger *slog.Logger
	// MaxBody is the largest request or response body accepted, in bytes;
	// zero or less means DefaultMaxBody. A larger request is refused with
	// 413; a larger answer is passed on but not recorded, and fails the run.
	MaxBody int64
	// Limits bound the time and connections a client can hold; each zero
	// field takes its default.
	Limits Limits
	// ControlToken, when set, lets peers that send it as a bearer token use
	// the control API (ControlPrefix); empty means only loopback peers may.
	ControlToken string
	// Faults answer chosen requests instead of their recordings, as specs
	// "WHERE: WHAT" (docs/resilience.md), in any mode that answers from
	// cassettes; SetFaults replaces them while serving. Nil means none.
	Faults []string
	// ToolFakes answers tool calls (MCP tools/call, A2A messages, HTTP
	// tool requests) instead of their recordings and their servers, in
	// every mode; while recording, what a fake answered is kept as the
	// exchange. Nil fakes nothing.
	ToolFakes ToolFaker
	// ClosedWorld fails a replay on any tool request that is neither
	// recorded exactly nor faked, naming it, in every replay mode
	// (lenient replay too).
	ClosedWorld bool
	// OnReload, when set, is called by Server.Watch after each attempt to
	// reload a cassette file edited on disk: err is nil when the cassette
	// was replaced (or removed, with its file), else the reason, naming
	// file:line, while the last good version keeps serving. name is the
	// cassette's name; for a file that does not load, the name it served
	// under or else the one its path gives. It runs on Watch's goroutine.
	// Nil hears nothing.
	OnReload func(name string, err error)

	// The hooks, by stage. Each runs on the goroutine serving the request,
	// so concurrently with itself; nil skips the stage.

	// BeforeSave sees each exchange a record mode is about to keep (after
	// secrets are removed, before it reaches the journal or the cassette)
	// and may edit it: what it leaves is what is saved. Returning ErrDrop
	// keeps nothing of it; any other error also keeps nothing, is logged,
	// reported, and fails the run (Server.Failure). The client's answer is
	// not changed: for a stream it has already been sent. Not called for
	// what is only forwarded (ModePassthrough, Passthrough).
	BeforeSave func(*cassettes.Exchange) error
	// BeforeReplay sees a copy of each recording about to answer a request
	// and may edit it: its Response is what the client gets (Request is
	// what was recorded). The cassette is not changed. An error answers the
	// request with a 500 Gemini error instead. Live API connections are
	// replayed as recorded, without it.
	BeforeReplay func(*cassettes.Exchange) error
	// Passthrough, when it returns true for a request (model or tool
	// traffic; its body can be read again), sends it upstream and keeps
	// nothing, in every mode: the one way ModeReplay contacts an upstream,
	// which a replay Server then keeps a Transport for. Nil passes nothing
	// through.
	Passthrough func(*http.Request) bool
	// Match, when set, decides which recordings may answer a request in
	// place of the matcher's canonical comparison: a replaying cassette
	// answers with the first unused recording, in file order, for which
	// Match(request, recorded) is true (tool requests are compared only
	// with tool recordings). request is the request as it would be
	// stored, without its headers (a tool request keeps Content-Type):
	// secrets removed, Body the bytes sent. A request that Match pairs
	// with none is unmatched. Not with ConformanceKeys, and not for ModeRecord or
	// ModePassthrough, which replay nothing.
	Match func(request, recorded *cassettes.Request) bool

	// Hints end failure messages with what the user can do about them, in
	// the words of the program around the Server; the zero value adds
	// none.
	Hints Hints
}

// Hints finish failure messages with what the user can do about them, in
// the words of the program around the Server (its commands and flags),
// which package proxy does not know: adkproxy's CLI names its commands,
// adkproxytest the go test command line that re-records. An empty hint is
// left out.
type Hints struct {
	// Record: a cassette that does not exist or is empty.
	Record string
	// Rerecord: a request that matches no recording.
	Rerecord string
	// Mismatch: a request that differs from the recording at its place.
	Mismatch string
	// UsedUp: a request whose recorded answers were all used already.
	UsedUp string
	// TooLarge: a request body larger than MaxBody.
	TooLarge string
	// Control: a control request refused for lack of a control token.
	Control string
	// Folder names the cassettes folder in these messages in place of
	// Dir, when Dir stands in for a folder the user gave (an empty one
	// for a folder its recording never made); empty: Dir.
	Folder string
}

// folder is the cassettes folder as messages name it.
func (c *Config) folder() string {
	if c.Hints.Folder != "" {
		return c.Hints.Folder
	}
	return c.Dir
}

func (c *Config) setDefaults() error {
	if c.Mode == "" {
		c.Mode = ModeReplay
	}
	if err := c.checkModes(); err != nil {
		return err
	}
	if c.Dir == "" && c.Mode == ModeReplay {
		c.Dir = defaultDir
	}
	c.Limits.setDefaults()
	if c.DefaultCassette == "" {
		c.DefaultCassette = cassettes.DefaultName
	}
	if _, err := cassettes.FileName(c.DefaultCassette); err != nil {
		return fmt.Errorf("default cassette: %w", err)
	}
	if c.Sample < 0 || c.Sample > samplename.Max {
		return fmt.Errorf("proxy: Config.Sample %d: want 0 (no samples) or a sample number 1..%d", c.Sample, samplename.Max)
	}
	if c.Mode == ModeReplay && c.Passthrough == nil {
		// Replay answers from cassettes only: no upstream, no client.
		c.Upstream, c.VertexUpstream, c.Transport = nil, nil, nil
	} else {
		if c.Upstream == nil {
			u, err := url.Parse(DefaultUpstream)
			if err != nil {
				return err
			}
			c.Upstream = u
		}
		if c.Transport == nil {
			t := newUpstreamTransport(c.ConnectTo, c.UpstreamRoots)
			t.ResponseHeaderTimeout = c.Limits.UpstreamHeaderTimeout
			c.Transport = t
		}
	}
	if err := c.Forward.check(); err != nil {
		return err
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.Redactor == nil {
		c.Redactor = cassettes.NewRedactor()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Matcher == nil {
		c.Matcher = matcher.Default()
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	return nil
}

// hinted ends msg with hint, after sep, when there is one.
func hinted(msg, sep, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + sep + hint
}
