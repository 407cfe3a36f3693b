// Limits on what one client can hold: time to send a request, time to take
// an answer, idle keep-alive time, time the upstream may take to start
// answering, and the number of connections.

package proxy

import (
	"net/http"
	"time"
)

// Limits bound the time and connections a client can hold. Zero fields
// take the defaults below.
type Limits struct {
	// ReadTimeout: a request's headers and body must arrive within it
	// (headers within HeaderTimeout, when that is shorter).
	ReadTimeout time.Duration
	// IdleTimeout: a keep-alive connection with no request is closed.
	IdleTimeout time.Duration
	// WriteTimeout: a client must take a non-streaming answer within it;
	// streams are exempt, they last as long as the upstream's.
	WriteTimeout time.Duration
	// UpstreamHeaderTimeout: while recording, the upstream must send its
	// status and headers within it (the model's thinking happens before
	// them for non-streaming calls, hence the long default).
	UpstreamHeaderTimeout time.Duration
	// MaxConns: connections beyond it get a 503 Gemini error and are
	// closed.
	MaxConns int
}

// Defaults of Limits.
const (
	DefaultReadTimeout           = 60 * time.Second
	DefaultIdleTimeout           = 120 * time.Second
	DefaultWriteTimeout          = 60 * time.Second
	DefaultUpstreamHeaderTimeout = 10 * time.Minute
	DefaultMaxConns              = 1024
	// HeaderTimeout is the longest a client may take to send its headers.
	HeaderTimeout = 30 * time.Second
)

func (l *Limits) setDefaults() {
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultWriteTimeout
	}
	if l.UpstreamHeaderTimeout <= 0 {
		l.UpstreamHeaderTimeout = DefaultUpstreamHeaderTimeout
	}
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
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
