// Limits on what one client can hold: time to send a request, time to take
// an answer, idle keep-alive time, time the upstream may take to start
// answering, and the number of connections.

package proxy

import (
	"net/http"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
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

// armReadDeadline starts the clock on reading a request's body. It says
// whether the writer has deadlines (tests' recorders have none); if so,
// liftReadDeadline must follow once the body is in, so the connection's
// background read (which watches for the client going away) has none.
// Arming and lifting build no closure and no controller on the heap:
// every replayed request does both.
func (s *Server) armReadDeadline(w http.ResponseWriter) bool {
	return http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.Limits.ReadTimeout)) == nil
}

func liftReadDeadline(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// armWriteDeadline bounds the writing of a non-streaming answer; when it
// says the writer has deadlines, liftWriteDeadline must follow the writing.
func (s *Server) armWriteDeadline(w http.ResponseWriter) bool {
	return http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.Limits.WriteTimeout)) == nil
}

// liftWriteDeadline flushes the answer and lifts the write deadline, which
// would otherwise carry over to the connection's next request.
func liftWriteDeadline(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	rc.Flush()
	rc.SetWriteDeadline(time.Time{})
}

// writeDeadline is armWriteDeadline with its lifting as a function.
func (s *Server) writeDeadline(w http.ResponseWriter) (done func()) {
	if !s.armWriteDeadline(w) {
		return func() {}
	}
	return func() { liftWriteDeadline(w) }
}
