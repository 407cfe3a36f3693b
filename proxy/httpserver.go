// HTTPServer: the net/http server settings adkproxy is served with, shared
// by the CLI and the Go test helper.

package proxy

import (
	"log/slog"
	"net/http"
	"time"
)

// ReplayPlaceholderKey is the API key given to clients in replay, for SDKs
// that refuse to start without one; replay never sends it anywhere.
const ReplayPlaceholderKey = "adkproxy-replay-no-key"

// HTTPServer returns an http.Server that serves s: a bound on how long a
// client may take to send its headers, and net/http's own complaints
// logged at debug level on the server's logger. Serve it on any listener
// (or set it as an httptest.Server's Config), and call s.Close once it has
// stopped.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(), // base-URL traffic, and the forward proxy when configured
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
}
