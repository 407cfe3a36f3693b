// Start, New and the Proxy they return: an adkproxy on a loopback port for
// one test, and the clients that talk to it.

package adkproxytest

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/proxy"
)

// RecordEnv is the environment variable that makes Start and New record
// instead of replay: any value strconv.ParseBool reads as true ("1", "true").
const RecordEnv = "ADKPROXY_RECORD"

// Proxy is an adkproxy serving one test on a loopback port.
type Proxy struct {
	// URL is the proxy's base URL, such as http://127.0.0.1:41234: the
	// base URL to give a Gemini client (GOOGLE_GEMINI_BASE_URL).
	URL string
	// Cassette is the cassette requests go to when they name none: the
	// test's name, or the Cassette option's. A request's
	// X-Adkproxy-Cassette header can name another.
	Cassette string
	// Server is the proxy itself, for its Report and Stats.
	Server *proxy.Server

	recording bool
	keyless   bool // a client may do with the placeholder key: replay, or recording from a non-Google upstream
	strict    bool // replays strictly: a recording never requested fails the run
	dir       string
	http      *httptest.Server
	release   func() // the recording lock (a no-op in replay)
	closed    bool
}

// Option changes how Start and New set up the proxy.
type Option func(*settings)

type settings struct {
	record    *bool
	cassette  string
	configure []func(*proxy.Config)
}

// Record records (true) or replays (false), whatever ADKPROXY_RECORD says.
func Record(on bool) Option { return func(s *settings) { s.record = &on } }

// Cassette names the cassette instead of t.Name() (Start only; New takes
// the name as an argument). Names are checked as the X-Adkproxy-Cassette
// header's are: "suite/case" makes a subfolder.
func Cassette(name string) Option { return func(s *settings) { s.cassette = name } }

// Configure changes the proxy.Config before the proxy starts, for any
// setting without an option of its own (another upstream, ignored fields,
// lenient replay, record modes, hooks, a logger, redactions).
func Configure(f func(*proxy.Config)) Option {
	return func(s *settings) { s.configure = append(s.configure, f) }
}

// defaultDir is where cassettes go when Start or New is given no folder:
// beside the test's package, as go test runs it.
const defaultDir = "testdata/cassettes"

// Start serves a proxy for the test t, with cassettes under dir (empty:
// testdata/cassettes) and the cassette named after t.Name(), and stops it
// when the test ends: it then writes what was recorded and fails t with
// adkproxy's summary if the run failed (see the package documentation). A
// proxy that cannot start fails t at once.
func Start(t testing.TB, dir string, opts ...Option) *Proxy {
	t.Helper()
	var s settings
	for _, o := range opts {
		o(&s)
	}
	name := t.Name()
	if s.cassette != "" {
		name = s.cassette
	}
	p, err := New(dir, name, opts...)
	if err != nil {
		t.Fatalf("adkproxytest: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("adkproxytest: %v", err)
		}
	})
	return p
}

// New serves a proxy with cassettes under dir (empty: testdata/cassettes)
// that sends requests naming no cassette to the cassette name. Close it
// when done.
func New(dir, name string, opts ...Option) (*Proxy, error) {
	if dir == "" {
		dir = defaultDir
	}
	var s settings
	for _, o := range opts {
		o(&s)
	}
	recording, err := s.recording()
	if err != nil {
		return nil, err
	}
	cfg := proxy.Config{Mode: proxy.ModeReplay, Dir: dir, DefaultCassette: name}
	cfg.Hints = hints(name)
	if recording {
		cfg.Mode = proxy.ModeRecord
	}
	for _, f := range s.configure {
		f(&cfg)
	}
	// The CLI's lock policy: one recording process per folder, shared by
	// the parallel tests of this one.
	release, err := runpolicy.LockForRecording(dir, cfg.Mode, cfg.Logger)
	if err != nil {
		return nil, err
	}
	srv, err := proxy.New(cfg)
	var missing *cassettes.MissingFolderError
	if errors.As(err, &missing) {
		release()
		return nil, fmt.Errorf("%w; %s (with GOOGLE_API_KEY set, or an Upstream)", err, hints(name).Record)
	}
	if err != nil {
		release()
		return nil, err
	}
	hs := httptest.NewUnstartedServer(srv)
	hs.Config = srv.HTTPServer()
	hs.Start()
	recording = cfg.Mode != proxy.ModeReplay && cfg.Mode != ""
	return &Proxy{URL: hs.URL, Cassette: name, Server: srv, recording: recording,
		keyless: !recording || proxyopt.PlaceholderKeyServes(cfg.Upstream),
		strict:  cfg.Mode == proxy.ModeReplay && !cfg.Lenient, dir: dir, http: hs, release: release}, nil
}

func (s settings) recording() (bool, error) {
	if s.record != nil {
		return *s.record, nil
	}
	v := os.Getenv(RecordEnv)
	if v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want 1 to record or 0 to replay", RecordEnv, v)
	}
	return on, nil
}

// hints end the proxy's failure messages with what to do in a Go test.
func hints(name string) proxy.Hints {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	rerecord := fmt.Sprintf("%s=1 go test -run '%s'", RecordEnv, strings.Join(levels, "/"))
	return proxy.Hints{
		Record:   "record it with " + rerecord,
		Rerecord: "Re-record with " + rerecord + " if the change is intended.",
		Mismatch: "Re-record with " + rerecord + " if the change is intended.",
		UsedUp:   "re-record with " + rerecord,
		TooLarge: "raise proxy.Config.MaxBody with adkproxytest.Configure",
	}
}

// Recording says whether the proxy records (else it replays).
func (p *Proxy) Recording() bool { return p.recording }

// ClientConfig is a Gemini API client configuration that talks to the
// proxy: pass it to genai.NewClient. While recording, the key comes from
// GOOGLE_API_KEY or GEMINI_API_KEY; in replay it is a placeholder that is
// never sent anywhere, and so it is when recording from a Config.Upstream that
// is not Google's (a fake API) with neither variable set.
func (p *Proxy) ClientConfig() *genai.ClientConfig {
	key := proxyopt.ReplayPlaceholderKey
	if p.recording {
		key = os.Getenv("GOOGLE_API_KEY")
		if key == "" {
			key = os.Getenv("GEMINI_API_KEY")
		}
		if key == "" && p.keyless {
			key = proxyopt.ReplayPlaceholderKey
		}
	}
	return &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: p.URL},
		HTTPClient:  p.HTTPClient(),
	}
}

// HTTPClient is an http.Client that sends every request to the proxy,
// whatever host its URL names, so code that calls
// https://generativelanguage.googleapis.com (or a Vertex AI host) directly
// goes through the proxy unchanged.
func (p *Proxy) HTTPClient() *http.Client {
	base, _ := url.Parse(p.URL) // httptest's URL always parses
	return &http.Client{Transport: toProxy{base: base, next: p.http.Client().Transport}}
}

// toProxy rewrites each request's scheme and host to the proxy's.
type toProxy struct {
	base *url.URL
	next http.RoundTripper
}

func (t toProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.base.Scheme, t.base.Host, ""
	return t.next.RoundTrip(r)
}

// Close stops the proxy and writes what it recorded. It returns an error
// when a cassette could not be read or written, or when the run failed by
// its mode's rules (proxy.ErrRunFailed), followed by adkproxy's summary of
// the requests and recordings at fault. Strict replay also fails when the
// test's cassette exists but no request reached it: the proxy itself only
// counts unused recordings of cassettes a run touched, since a CLI replay
// serves many tests' cassettes. Closing twice does nothing.
func (p *Proxy) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	p.hangUpClients()
	p.http.Close()
	srv := p.Server
	err := errors.Join(srv.Close(), srv.Err())
	p.release()
	if failure := srv.Failure(); failure != nil {
		var summary strings.Builder
		for _, l := range proxy.Summary(srv.Report(), srv.Stats(), "") {
			summary.WriteString(l.Text + "\n")
		}
		err = errors.Join(err, fmt.Errorf("%w\n%s", failure, summary.String()))
	}
	return errors.Join(err, p.untouched())
}

// hangUpClients closes the idle keep-alive connections of the clients this
// package hands out (and of http.DefaultTransport, which httptest closes
// anyway) before the server closes its side. The side that closes first
// keeps the connection in TIME_WAIT for a minute: on the client that is a
// port loopback connects may reuse, on the server it is a listening port
// every later test's proxy must search past, so a suite of many tests
// would slow each Start by the ones before it.
func (p *Proxy) hangUpClients() {
	type idleCloser interface{ CloseIdleConnections() }
	for _, t := range []http.RoundTripper{p.http.Client().Transport, http.DefaultTransport} {
		if c, ok := t.(idleCloser); ok {
			c.CloseIdleConnections()
		}
	}
}

// untouched fails a strict replay whose cassette exists but that no
// request reached (runpolicy's rule, the CLI's too), whose recordings the
// proxy does not count as unused. A recording test may call no model: it
// writes no cassette then.
func (p *Proxy) untouched() error {
	scope := runpolicy.Scope{Dir: p.dir, Cassette: p.Cassette, Recording: p.recording, Strict: p.strict}
	if runpolicy.NothingReached(p.Server, scope) != runpolicy.NothingReplayed {
		return nil
	}
	return fmt.Errorf("%w: cassette %q in %s exists but no request reached it; give the client p.ClientConfig() or p.HTTPClient(), or delete the cassette if the test no longer calls the model",
		proxy.ErrRunFailed, p.Cassette, p.dir)
}
