// Limits on what one client can hold: time to send a request, time to take
// an answer, idle keep-alive time, time the upstream may take to start
// answering, and the number of connections.

package proxy

import (
	"net/http"
	"time"

	"github.com/adkproxy/adkproxy/internal/proxyopt"
)

// Limits bound the time and connections a client can hold. Each field's
// zero value (or a negative one) means the default it names.
type Limits struct {
	// ReadTimeout: a request's headers and body must arrive within it
	// (headers within 30s, when that is shorter). Default 60s.
	ReadTimeout time.Duration
	// IdleTimeout: a keep-alive connection with no request for this long
	// is closed. Default 2m.
	IdleTimeout time.Duration
	// WriteTimeout: a client must take a non-streaming answer within it;
	// streams are exempt, they last as long as the upstream's. Default
	// 60s.
	WriteTimeout time.Duration
	// UpstreamHeaderTimeout: while recording, the upstream must send its
	// status and headers within it (the model's thinking happens before
	// them for non-streaming calls, hence the long default: 10m).
	UpstreamHeaderTimeout time.Duration
	// MaxConns: connections beyond it get a 503 Gemini error and are
	// closed. Default 1024; it applies where the CLI serves the Server.
	MaxConns int
}

func (l *Limits) setDefaults() {
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = proxyopt.DefaultReadTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = proxyopt.DefaultIdleTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = proxyopt.DefaultWriteTimeout
	}
	if l.UpstreamHeaderTimeout <= 0 {
		l.UpstreamHeaderTimeout = proxyopt.DefaultUpstreamHeaderTimeout
	}
	if l.MaxConns <= 0 {
		l.MaxConns = proxyopt.DefaultMaxConns
	}
}

// bodyDeadline starts the clock on reading a request's body; the returned
// function stops it once the body is in, so the connection's background
// read (which watches for the client going away) has no deadline.
func (s *Server) bodyDeadline(w http.ResponseWriter) (done func()) {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.cfg.Limits.ReadTimeout)) != nil {
		return func() {} // a writer without deadlines (tests' recorders)
	}
	return func() { rc.SetReadDeadline(time.Time{}) }
}

// writeDeadline bounds the writing of a non-streaming answer; the
// returned function flushes it and lifts the deadline, which would
// otherwise carry over to the connection's next request.
func (s *Server) writeDeadline(w http.ResponseWriter) (done func()) {
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Now().Add(s.cfg.Limits.WriteTimeout)) != nil {
		return func() {}
	}
	return func() {
		rc.Flush()
		rc.SetWriteDeadline(time.Time{})
	}
}
