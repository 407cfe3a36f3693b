package proxy

import (
	"log/slog"
	"net/http"
	"net/url"

	"github.com/adkproxy/adkproxy/cassettes"
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

// DefaultMaxBody is the largest request or response body accepted (64 MiB).
const DefaultMaxBody = 64 << 20

// Config configures a Server. Zero values mean the documented defaults.
type Config struct {
	Mode Mode
	// Dir is the cassette folder.
	Dir string
	// DefaultCassette is used when a request names no cassette.
	DefaultCassette string
	// Upstream is the Gemini API base URL (record mode).
	Upstream *url.URL
	// VertexUpstream, when set, receives every Vertex AI path; otherwise
	// the host is derived from the location in the path.
	VertexUpstream *url.URL
	// Transport sends upstream requests (record mode only).
	Transport http.RoundTripper
	// AllowRepeats keeps serving the last recorded answer once a request's
	// recordings are used up, instead of treating it as a miss.
	AllowRepeats bool
	// ReplayTiming sleeps the recorded delays before each answer and event.
	ReplayTiming bool
	Clock        Clock
	Redactor     *cassettes.Redactor
	Logger       *slog.Logger
	MaxBody      int64
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
		c.Transport = http.DefaultTransport.(*http.Transport).Clone()
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
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	return nil
}
