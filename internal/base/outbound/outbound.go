// The policy, its client, and the errors that name what it refused.

package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The defaults of a zero Policy.
const (
	// DefaultMaxAnswer bounds one answer's body, a whole event stream
	// included (as --max-body bounds what the proxy records).
	DefaultMaxAnswer = 64 << 20
	// DefaultConnectTimeout bounds connecting (and a TLS handshake).
	DefaultConnectTimeout = 30 * time.Second
	// DefaultHeaderTimeout bounds the wait for an answer's headers once
	// the request is sent: an agent's server may answer only after its
	// first model call.
	DefaultHeaderTimeout = 5 * time.Minute
	// DefaultIdleTimeout bounds a silence inside an answer's body (between
	// two events of a stream: a model call of the agent).
	DefaultIdleTimeout = 5 * time.Minute
)

// Policy is what every outbound client obeys. The zero value is the
// defaults above, with redirects kept to the request's origin.
type Policy struct {
	// MaxAnswer bounds the bytes of one answer body; reading past it is
	// an *AnswerTooLargeError.
	MaxAnswer      int64
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration
	IdleTimeout    time.Duration
	// AllowRedirect are the origins ("host:port", or a URL's
	// "scheme://host:port") a redirect may lead to besides the request's
	// own; any other is a *RedirectError.
	AllowRedirect []string
}

func (p Policy) withDefaults() Policy {
	if p.MaxAnswer <= 0 {
		p.MaxAnswer = DefaultMaxAnswer
	}
	if p.ConnectTimeout <= 0 {
		p.ConnectTimeout = DefaultConnectTimeout
	}
	if p.HeaderTimeout <= 0 {
		p.HeaderTimeout = DefaultHeaderTimeout
	}
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = DefaultIdleTimeout
	}
	return p
}

// Client is an http.Client that obeys p: its own transport (dialing with
// the connect timeout, the header timeout), every answer body capped and
// idle-timed, redirects checked.
func (p Policy) Client() *http.Client {
	p = p.withDefaults()
	dialer := &net.Dialer{Timeout: p.ConnectTimeout, KeepAlive: 30 * time.Second}
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   p.ConnectTimeout,
		ResponseHeaderTimeout: p.HeaderTimeout,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          16,
		ForceAttemptHTTP2:     true,
	}
	return p.Wrap(t)
}

// Wrap is a client that sends through rt (adkproxy's in-process recorder,
// for the judge) under p's caps and redirect rule; connect and header
// timeouts are rt's own.
func (p Policy) Wrap(rt http.RoundTripper) *http.Client {
	p = p.withDefaults()
	return &http.Client{Transport: &capped{next: rt, p: p}, CheckRedirect: p.checkRedirect}
}

// RedirectError is a redirect the policy refused.
type RedirectError struct {
	From, To string
	Status   int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused the redirect (HTTP %d) from %s to %s: another origin; the request and its body stay unsent there (allow that origin with --allow-redirect %s)",
		e.Status, e.From, e.To, originOf(mustURL(e.To)))
}

// checkRedirect follows a redirect only to the first request's origin or
// an allowed one, at most 10 times.
func (p Policy) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("stopped after 10 redirects (last %s)", Printable(req.URL.Redacted()))
	}
	first := via[0].URL
	if sameOrigin(first, req.URL) || p.allowed(req.URL) {
		return nil
	}
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	return &RedirectError{From: Printable(via[len(via)-1].URL.Redacted()), To: Printable(req.URL.Redacted()), Status: status}
}

func (p Policy) allowed(u *url.URL) bool {
	return slices.ContainsFunc(p.AllowRedirect, func(a string) bool {
		a = strings.TrimRight(strings.TrimSpace(a), "/")
		if strings.Contains(a, "://") {
			return strings.EqualFold(a, u.Scheme+"://"+originOf(u))
		}
		return strings.EqualFold(a, originOf(u))
	})
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(originOf(a), originOf(b))
}

// originOf is host:port with the scheme's default port filled in.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// AnswerTooLargeError is an answer body longer than MaxAnswer.
type AnswerTooLargeError struct {
	URL string
	Max int64
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("the answer of %s is over %d bytes, the cap of one answer; stopped reading it (raise --max-answer if it is legitimate)", e.URL, e.Max)
}

// IdleError is an answer body silent for longer than IdleTimeout.
type IdleError struct {
	URL  string
	Idle time.Duration
}

func (e *IdleError) Error() string {
	return fmt.Sprintf("the answer of %s sent nothing for %v; gave up on it", e.URL, e.Idle)
}

// ErrRefused is wrapped by every error the policy itself makes.
var ErrRefused = errors.New("outbound policy")

func (e *AnswerTooLargeError) Unwrap() error { return ErrRefused }
func (e *IdleError) Unwrap() error           { return ErrRefused }
func (e *RedirectError) Unwrap() error       { return ErrRefused }

// capped is the transport of a policy's client.
type capped struct {
	next http.RoundTripper
	p    Policy
}

func (c *capped) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	resp, err := c.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	b := &body{rc: resp.Body, left: c.p.MaxAnswer, max: c.p.MaxAnswer, url: Printable(req.URL.Redacted()), idle: c.p.IdleTimeout, cancel: cancel}
	b.timer = time.AfterFunc(b.idle, b.expire)
	resp.Body = b
	return resp, nil
}

// body caps an answer and cancels its request after a silence.
type body struct {
	rc     io.ReadCloser
	left   int64
	max    int64
	url    string
	idle   time.Duration
	cancel context.CancelFunc
	timer  *time.Timer

	mu      sync.Mutex
	expired bool
}

func (b *body) expire() {
	b.mu.Lock()
	b.expired = true
	b.mu.Unlock()
	b.cancel()
}

func (b *body) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells an answer of exactly max from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &AnswerTooLargeError{URL: b.url, Max: b.max}
		}
		return 0, b.err(err)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	return n, b.err(err)
}

func (b *body) err(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	b.mu.Lock()
	expired := b.expired
	b.mu.Unlock()
	if expired {
		return &IdleError{URL: b.url, Idle: b.idle}
	}
	return err
}

func (b *body) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel()
	return err
}

// Printable is server text made safe to show on a terminal: control and
// formatting characters (escape sequences, carriage returns, bidi
// overrides) become U+FFFD; newlines and tabs stay.
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == ' ' || unicode.IsPrint(r) {
			return r
		}
		return utf8.RuneError
	}, s)
}
