// Where upstream connections go and which certificates they may chain
// to (Config.ConnectTo, Config.UpstreamRoots), for Gemini and tool hosts.

package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"strings"
	"time"
)

// ConnectTo sends connections for one host and port to another address
// while requests keep the host name for TLS (SNI, certificate checks) and
// matching, like curl's --connect-to (Config.ConnectTo).
type ConnectTo struct {
	// From is "host:port" as the request names it; To is the address
	// dialled. Both are needed: a rule with an empty one never applies.
	From, To string
}

// dialer dials upstream addresses, rerouted by the --connect-to rules.
type dialer struct {
	net.Dialer
	routes map[string]string
}

func newDialer(rules []ConnectTo) *dialer {
	d := &dialer{Dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}, routes: map[string]string{}}
	for _, r := range rules {
		d.routes[r.From] = r.To
	}
	return d
}

func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if to, ok := d.routes[strings.ToLower(addr)]; ok {
		return d.Dialer.DialContext(ctx, network, to) // the operator named where it goes
	}
	if ctx.Value(guardKey{}) != nil { // forward_local.go: a peer off loopback
		guarded := d.Dialer
		guarded.Control = guardedControl
		return guarded.DialContext(ctx, network, addr)
	}
	return d.Dialer.DialContext(ctx, network, addr)
}

// newUpstreamTransport is the transport every upstream request (Gemini's
// and tools') goes through.
func newUpstreamTransport(rules []ConnectTo, roots *x509.CertPool) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Agents call the API in parallel; the default keeps only 2 idle
	// connections per host, so every other call paid a new connection
	// (a TLS handshake to the real API).
	t.MaxIdleConnsPerHost = t.MaxIdleConns
	t.DialContext = newDialer(rules).DialContext
	if roots != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: roots}
	}
	return t
}
