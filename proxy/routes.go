// routes.go: where upstream connections go and which certificates they
// may chain to (--connect-to, --upstream-ca), for Gemini and tool hosts.
package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// ConnectTo sends connections for one host and port to another address
// while requests keep the host name for TLS (SNI, certificate checks) and
// matching, like curl's --connect-to.
type ConnectTo struct {
	// From is "host:port" as the request names it; To is the address dialled.
	From, To string
}

// ParseConnectTo reads "HOST:PORT=ADDR", e.g.
// "generativelanguage.googleapis.com:443=127.0.0.1:8443".
func ParseConnectTo(s string) (ConnectTo, error) {
	bad := func(why string) (ConnectTo, error) {
		return ConnectTo{}, fmt.Errorf("rule %q: %s; want HOST:PORT=ADDR:PORT, e.g. generativelanguage.googleapis.com:443=127.0.0.1:8443", s, why)
	}
	from, to, ok := strings.Cut(s, "=")
	if !ok {
		return bad("no '='")
	}
	for _, hp := range []string{from, to} {
		host, port, err := net.SplitHostPort(hp)
		if err != nil {
			return bad(fmt.Sprintf("%q is not HOST:PORT", hp))
		}
		if host == "" {
			return bad(fmt.Sprintf("%q has no host", hp))
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad(fmt.Sprintf("%q has no valid port (1-65535)", hp))
		}
	}
	return ConnectTo{From: strings.ToLower(from), To: to}, nil
}

// LoadUpstreamCA returns the system roots plus every certificate in the PEM
// file, for upstream servers whose certificates chain to a private CA.
func LoadUpstreamCA(file string) (*x509.CertPool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("upstream CA file %s: cannot read it: %v", file, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("upstream CA file %s: no PEM certificate in it (want a file with -----BEGIN CERTIFICATE-----)", file)
	}
	return pool, nil
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
		addr = to
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
