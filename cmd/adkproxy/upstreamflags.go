// Reading the flags that say where upstream requests go: base URLs
// (--upstream, --vertex-upstream, the judge's and simulated user's),
// --connect-to rules and --upstream-ca.

package main

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/proxy"
)

// parseConnectTo reads --connect-to, "HOST:PORT=ADDR", e.g.
// "generativelanguage.googleapis.com:443=127.0.0.1:8443".
func parseConnectTo(s string) (proxy.ConnectTo, error) {
	bad := func(why string) (proxy.ConnectTo, error) {
		return proxy.ConnectTo{}, fmt.Errorf("rule %q: %s; want HOST:PORT=ADDR:PORT, e.g. generativelanguage.googleapis.com:443=127.0.0.1:8443", s, why)
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
	return proxy.ConnectTo{From: strings.ToLower(from), To: to}, nil
}

// loadUpstreamCA returns the system roots plus every certificate in the PEM
// file, for upstream servers whose certificates chain to a private CA.
func loadUpstreamCA(file string) (*x509.CertPool, error) {
	data, err := userfile.Read(file)
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

// parseUpstream checks an upstream base URL given on the command line.
func parseUpstream(flag, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s must be an http(s) URL like %s, not %q", flag, proxy.DefaultUpstream, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s must not have a query or fragment: %q", flag, raw)
	}
	return u, nil
}
