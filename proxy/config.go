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
	"github.com/adkproxy/adkproxy/matcher"
)

// DefaultMaxBody is the largest request or response body accepted (64 MiB).
const DefaultMaxBody = 64 << 20

// Config configures a Server. Zero values mean the documented defaults;
// modes.go says what each mode does.
type Config struct {
	Mode       Mode
	RecordMode RecordMode // record mode only; default RecordOverwrite
	ReplayMode ReplayMode // replay mode only; default ReplayStrict
	// Match says how replay finds a request's recording; default MatchBody
	// (keyed.go).
	Match MatchMode
	// Matcher decides which fields matching ignores (--ignore).
	Matcher *matcher.Matcher
	// Dir is the cassette folder.
	Dir string
	// DefaultCassette is used when a request names no cassette.
	DefaultCassette string
	// Upstream is the Gemini API base URL (record mode only).
	Upstream *url.URL
	// VertexUpstream, when set, receives every Vertex AI path; otherwise
	// the host is derived from the location in the path.
	VertexUpstream *url.URL
	// Transport sends upstream requests (record mode only: a replay server
	// drops it and builds none, so it has no way to reach the upstream).
	// When nil, one is made from ConnectTo and UpstreamRoots.
	Transport http.RoundTripper
	// ConnectTo reroutes upstream connections (--connect-to), for Gemini
	// and tool hosts alike; UpstreamRoots, when set, are the certificates
	// upstream servers may chain to (--upstream-ca). See routes.go.
	ConnectTo     []ConnectTo
	UpstreamRoots *x509.CertPool
	// Forward, when set, makes Handler also an HTTP forward proxy that
	// intercepts HTTPS (forward.go).
	Forward *ForwardProxy
	// AllowRepeats keeps serving the last recorded answer once a request's
	// recordings are used up, instead of treating it as a miss.
	AllowRepeats bool
	// ReplayTiming sleeps the recorded delays before each answer and event.
	ReplayTiming bool
	Clock        Clock
	Redactor     *cassettes.Redactor
	Logger       *slog.Logger
	MaxBody      int64
	// Limits bound the time and connections a client can hold (limits.go).
	Limits Limits
	// Hints end failure messages with what the user can do about them.
	Hints Hints
	// ControlToken, when set, lets peers that send it as a bearer token use
	// the control API (control.go); without it only loopback peers may.
	ControlToken string
	// Faults are injected in replay instead of recordings, as specs
	// "WHERE: WHAT" (faults.go); SetFaults replaces them while serving.
	Faults []string
	// OnReload, when set, is called by Server.Watch after each attempt to
	// reload a cassette file edited on disk: err is nil when the cassette
	// was replaced (or removed, with its file), else the reason, naming
	// file:line, while the last good version keeps serving. name is the
	// cassette's name; for a file that does not load, the name it served
	// under or else the one its path gives. It runs on Watch's goroutine.
	OnReload func(name string, err error)
}

func (c *Config) setDefaults() error {
	c.Limits.setDefaults()
	if c.DefaultCassette == "" {
		c.DefaultCassette = cassettes.DefaultName
	}
	if _, err := cassettes.FileName(c.DefaultCassette); err != nil {
		return fmt.Errorf("default cassette: %w", err)
	}
	if c.Mode == ModeReplay {
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
	if c.RecordMode == "" {
		c.RecordMode = RecordOverwrite
	}
	if c.ReplayMode == "" {
		c.ReplayMode = ReplayStrict
	}
	if c.Match == "" {
		c.Match = MatchBody
	}
	if c.Matcher == nil {
		c.Matcher = matcher.Default()
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	return c.validate()
}

// Hints finish failure messages with what the user can do about them, in
// the words of the program around the server (its commands and flags),
// which this package does not know. An empty hint is left out.
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
}

// hinted ends msg with hint, after sep, when there is one.
func hinted(msg, sep, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + sep + hint
}
