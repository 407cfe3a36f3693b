package proxy

import (
	"crypto/x509"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// Mode is what the proxy does with each request.
type Mode string

const (
	// ModeRecord forwards every request upstream and writes what happened
	// into the cassette, replacing the cassette's previous contents.
	ModeRecord Mode = "record"
	// ModeReplay answers only from cassettes and never contacts the
	// upstream; a request that was not recorded gets a 400 error.
	ModeReplay Mode = "replay"
)

// RecordMode says what record does with a cassette that already exists and
// with requests it has no recording for.
type RecordMode string

const (
	// RecordOverwrite (default): every request is forwarded and recorded;
	// a cassette used in the run is replaced by what this run recorded.
	RecordOverwrite RecordMode = "overwrite"
	// RecordOnce: a cassette that exists is replayed (strictly: a request
	// without a recording is an error); one that does not is recorded.
	RecordOnce RecordMode = "once"
	// RecordNewEpisodes: requests with a recording are replayed from it;
	// requests without one are forwarded and added to the cassette.
	RecordNewEpisodes RecordMode = "new-episodes"
	// RecordPassthrough: every request is forwarded and nothing is written.
	RecordPassthrough RecordMode = "passthrough"
)

// ReplayMode says what replay does when a request differs from the
// recording at its place in the conversation.
type ReplayMode string

const (
	// ReplayStrict (default): the request gets a 400 error naming each
	// differing field, and the run fails (exit 76).
	ReplayStrict ReplayMode = "strict"
	// ReplayLenient: the recorded response at that place is served anyway
	// and the difference is reported as a warning; the run passes.
	ReplayLenient ReplayMode = "lenient"
)

// DefaultMaxBody is the largest request or response body accepted (64 MiB).
const DefaultMaxBody = 64 << 20

// Config configures a Server. Zero values mean the documented defaults.
type Config struct {
	Mode       Mode
	RecordMode RecordMode
	ReplayMode ReplayMode
	// Matcher decides which fields matching ignores (--ignore).
	Matcher *matcher.Matcher
	// Dir is the cassette folder.
	Dir string
	// DefaultCassette is used when a request names no cassette.
	DefaultCassette string
	// Upstream is the Gemini API base URL (record mode).
	Upstream *url.URL
	// VertexUpstream, when set, receives every Vertex AI path; otherwise
	// the host is derived from the location in the path.
	VertexUpstream *url.URL
	// Transport sends upstream requests (record mode only). When nil, one
	// is made from ConnectTo and UpstreamRoots.
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
	// OnReload, when set, is called by Server.Watch after each attempt to
	// reload a cassette file edited on disk: err is nil when the cassette
	// was replaced (or removed, with its file), else the reason, naming
	// file:line, while the last good version keeps serving. name is the
	// cassette's name; for a file that does not load, the name it served
	// under or else the one its path gives. It runs on Watch's goroutine.
	OnReload func(name string, err error)
}

func (c *Config) setDefaults() error {
	if c.DefaultCassette == "" {
		c.DefaultCassette = cassettes.DefaultName
	}
	if c.Upstream == nil {
		u, err := url.Parse(DefaultUpstream)
		if err != nil {
			return err
		}
		c.Upstream = u
	}
	if c.Transport == nil {
		c.Transport = newUpstreamTransport(c.ConnectTo, c.UpstreamRoots)
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
	if c.Matcher == nil {
		c.Matcher = matcher.Default()
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	return nil
}
