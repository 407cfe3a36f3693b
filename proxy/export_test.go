package proxy

import (
	"context"
	"net/http"
)

// StartWatch runs s.Watch in the background and returns once the cassette
// folders are watched, so a test's edits are sure to be seen. The channel
// gets Watch's result.
func StartWatch(ctx context.Context, s *Server) <-chan error {
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.watch(ctx, func() { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		done <- err
	}
	return done
}

// UpstreamTransport is the client s would forward requests with.
func UpstreamTransport(s *Server) http.RoundTripper { return s.cfg.Transport }

// UploadsHeld is the bytes of unfinished uploads s keeps in memory.
func UploadsHeld(s *Server) (n int64) {
	s.uploads.mu.Lock()
	defer s.uploads.mu.Unlock()
	for _, a := range s.uploads.files {
		n += int64(len(a.data))
	}
	return n
}
