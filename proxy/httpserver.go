// HTTPServer: the net/http server settings adkproxy is served with, shared
// by the CLI and the Go test helper.

package proxy

import (
	"log/slog"
	"net/http"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// HTTPServer returns the http.Server adkproxy is served with, shared by
// the CLI and the Go test helper: s.Handler() (base-URL traffic, and the
// forward proxy when configured) with the limits that belong to the
// connection, header and idle timeouts. The request body and answer
// deadlines are set per request (http.Server's own ReadTimeout and
// WriteTimeout would also cut streams). net/http's complaints go to the
// server's logger at debug level: they are clients' mistakes. Serve it on
// any listener (the CLI wraps its listener to limit connections), or set it as
// an httptest.Server's Config, and call s.Close once it has stopped.
func (s *Server) HTTPServer() *http.Server {
	l := s.cfg.Limits
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: min(proxyopt.HeaderTimeout, l.ReadTimeout),
		IdleTimeout:       l.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	hs.RegisterOnShutdown(s.closeMCPStreams) // replayed HTTP+SSE streams last until their client goes
	return hs
}
