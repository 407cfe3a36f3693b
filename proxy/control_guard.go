// control_guard.go: who may use the control API, and which requests are
// for the proxy itself. A request for the proxy's own address, in any
// spelling and through any of its doors (base URL, absolute form, CONNECT),
// is judged by the peer that sent it, never forwarded to come back from
// loopback; a browser page on another origin cannot drive it.

package proxy

import (
	"context"
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// selfLookupTimeout bounds resolving a host name to learn whether it names
// this machine.
const selfLookupTimeout = 2 * time.Second

// canonicalHost is the form hosts are compared in: lower case, without
// IPv6 brackets, without the trailing dots of a fully qualified name
// ("LocalHost." is localhost).
func canonicalHost(host string) string {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimRight(strings.ToLower(host), ".")
}

// isLocalhostName: "localhost" and every name under it (RFC 6761), which
// resolve to loopback.
func isLocalhostName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// selfTargets decides whether a host and port a request is addressed to
// is this proxy. lookup resolves names (net.DefaultResolver unless a
// test or fuzz target sets another); interfaceIPs lists this machine's
// addresses.
type selfTargets struct {
	lookup       func(ctx context.Context, host string) ([]net.IP, error)
	interfaceIPs func() []net.IP
}

var defaultSelfTargets = selfTargets{
	lookup: func(ctx context.Context, host string) ([]net.IP, error) {
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		ips := make([]net.IP, len(addrs))
		for i, a := range addrs {
			ips[i] = a.IP
		}
		return ips, err
	},
	interfaceIPs: func() []net.IP {
		addrs, _ := net.InterfaceAddrs()
		var ips []net.IP
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				ips = append(ips, n.IP)
			}
		}
		return ips
	},
}

// is reports whether hostport ("host:port", or a bare host with the
// scheme's default port) reaches local, the address the request came in
// on. Any address of this machine with that port is: a listener on
// 0.0.0.0 or [::] answers on every one of them.
func (st selfTargets) is(ctx context.Context, local *net.TCPAddr, hostport, defaultPort string) bool {
	if local == nil {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n != local.Port {
		return false
	}
	host = canonicalHost(host)
	if zone := strings.IndexByte(host, '%'); zone >= 0 {
		host = host[:zone]
	}
	if isLocalhostName(host) {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return st.isMine(ip, local.IP)
	}
	if host == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, selfLookupTimeout)
	defer cancel()
	ips, _ := st.lookup(ctx, host)
	for _, ip := range ips {
		if st.isMine(ip, local.IP) {
			return true
		}
	}
	return false
}

// isMine: ip is an address of this machine.
func (st selfTargets) isMine(ip, local net.IP) bool {
	if ip.IsLoopback() || ip.IsUnspecified() || ip.Equal(local) {
		return true
	}
	for _, a := range st.interfaceIPs() {
		if a.Equal(ip) {
			return true
		}
	}
	return false
}

// localAddr is the address a request came in on (nil outside a server).
func localAddr(r *http.Request) *net.TCPAddr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return a
}

// forSelf: r, in absolute form or from inside an intercepted tunnel, is
// addressed to this proxy, which it reached at local.
func forSelf(r *http.Request, local *net.TCPAddr) bool {
	port := "80"
	if r.URL.Scheme == "https" {
		port = "443"
	}
	return defaultSelfTargets.is(r.Context(), local, r.URL.Host, port)
}

// connectToSelf: a CONNECT whose target ("host:port") is this proxy.
func connectToSelf(r *http.Request, target string) bool {
	return defaultSelfTargets.is(r.Context(), localAddr(r), target, "443")
}

// controlAllowed says whether the peer may use the control API: a peer
// that sends the configured token as a bearer token, or else one on the
// loopback interface that names the proxy by a loopback name or address
// (a foreign Host is a page whose name was rebound to 127.0.0.1). A
// request carrying an Origin other than the proxy's own comes from a page
// on another site and is refused whoever sent it, and state-changing
// calls need a JSON body type, which a page cannot send without asking
// first (CORS preflight, which the proxy never grants). It returns 0, or
// the status and message refusing the request.
func (s *Server) controlAllowed(r *http.Request) (int, string) {
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r) {
		return http.StatusForbidden, fmt.Sprintf("control requests from a web page are refused (Origin %q is not this proxy)", origin)
	}
	got, sent := bearerToken(r)
	switch token := s.cfg.ControlToken; {
	case token != "" && sent:
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return http.StatusUnauthorized, "the bearer token of this control request is not the control token"
		}
	case !isLoopbackPeer(r.RemoteAddr):
		if token == "" {
			return http.StatusForbidden, hinted(fmt.Sprintf("control requests from %s are refused: only loopback peers may use %s when no control token is set",
				r.RemoteAddr, ControlPrefix), "; ", s.cfg.Hints.Control)
		}
		return http.StatusUnauthorized, fmt.Sprintf("control requests from %s need the control token as \"Authorization: Bearer TOKEN\"", r.RemoteAddr)
	case !loopbackHost(r.Host):
		return http.StatusForbidden, fmt.Sprintf("control requests for host %q are refused: without the control token, name the proxy as localhost or by its IP address", r.Host)
	}
	if stateChanging(r.Method) && !isJSON(r.Header.Get("Content-Type")) {
		return http.StatusUnsupportedMediaType, fmt.Sprintf("%s %s needs \"Content-Type: application/json\"", r.Method, r.URL.Path)
	}
	return 0, ""
}

// refusalStatus is the google.rpc.Code name of a refusal by controlAllowed:
// a request without the right credentials is UNAUTHENTICATED (401), one
// from a peer or page that may not is PERMISSION_DENIED (403), and one
// without a JSON body type is INVALID_ARGUMENT (415): its argument, not
// its sender, is wrong.
func refusalStatus(code int) string {
	switch code {
	case http.StatusUnauthorized:
		return statusUnauthenticated
	case http.StatusUnsupportedMediaType:
		return statusInvalidArgument
	}
	return statusPermissionDenied
}

// loopbackHost: a Host header naming localhost or an IP address. A name
// that merely resolves to loopback is refused: that is what a rebound
// attacker's domain does.
func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = canonicalHost(host)
	return isLocalhostName(host) || net.ParseIP(host) != nil
}

// sameOrigin: origin is the proxy as the request names it.
func sameOrigin(origin string, r *http.Request) bool {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(origin, scheme+"://"+r.Host)
}

func stateChanging(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// fromForeignPage: a model request that a page on another site can send
// without asking first (a CORS "simple" request: no or a form or text
// content type), carrying that site's Origin. Such a request is never an
// SDK's: they send JSON.
func fromForeignPage(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || sameOrigin(origin, r) {
		return false
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data":
		return true
	}
	return false
}

// refuseForeignPage answers a model request that fromForeignPage caught.
// It is neither forwarded nor recorded, and fails a strict run like any
// request the proxy cannot serve.
func (s *Server) refuseForeignPage(w http.ResponseWriter, r *http.Request) {
	s.report.failed()
	s.log.Warn("request from a web page on another site refused", "origin", r.Header.Get("Origin"), "path", r.URL.Path)
	writeError(w, http.StatusForbidden, statusPermissionDenied, fmt.Sprintf(
		"a %s request from a web page on another site (Origin %q) is refused: model clients send JSON", r.Method, r.Header.Get("Origin")))
}

// refuseControlPath answers a tool request for a control path on another
// host: whatever that host is, it may be this proxy under a name that
// resolved elsewhere when checked, so control paths are never forwarded.
func (s *Server) refuseControlPath(w http.ResponseWriter, r *http.Request) bool {
	if !isControl(r) {
		return false
	}
	s.report.failed()
	writeError(w, http.StatusForbidden, statusPermissionDenied, fmt.Sprintf(
		"%s %s: %s paths are adkproxy's control API and are never forwarded; send control requests to adkproxy's own address", r.Method, r.URL.Redacted(), ControlPrefix))
	return true
}
