//go:build !linux

package testutil

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// Peer is another host for a server under test; only Linux has one (a
// network namespace), elsewhere NewPeer skips the test.
type Peer struct{ HostIP, PeerIP net.IP }

// NewPeer skips the test: network namespaces are Linux's.
func NewPeer(t testing.TB) *Peer {
	t.Helper()
	t.Skip("a non-loopback peer needs a Linux network namespace")
	return nil
}

// DialContext is never reached: NewPeer has skipped the test.
func (p *Peer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("no network namespaces here")
}

// Client is never reached: NewPeer has skipped the test.
func (p *Peer) Client(func(*http.Request) (*url.URL, error)) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: p.DialContext}}
}
