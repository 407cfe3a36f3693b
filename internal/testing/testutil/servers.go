// Loopback test servers that count their connections, so a test can prove
// that replay opened none.

package testutil

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// CountingServer is a loopback test server that counts the connections it
// accepts, so a test can prove replay opened none.
type CountingServer struct {
	*httptest.Server
	conns atomic.Int64
}

// Conns is how many connections the server has accepted so far.
func (s *CountingServer) Conns() int64 { return s.conns.Load() }

// Addr is the server's host:port.
func (s *CountingServer) Addr() string { return s.Listener.Addr().String() }

// StartCounting serves h, over TLS when leaf is set: leaf returns the
// certificate for the name the client asks for (SNI), so one server can
// stand in for any public host, e.g. with a test CA's Leaf method.
func StartCounting(t testing.TB, h http.Handler, leaf func(host string) (*tls.Certificate, error)) *CountingServer {
	t.Helper()
	s := &CountingServer{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	if leaf == nil {
		s.Start()
	} else {
		s.TLS = &tls.Config{GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) { return leaf(hello.ServerName) }}
		s.StartTLS()
	}
	t.Cleanup(s.Close)
	return s
}
