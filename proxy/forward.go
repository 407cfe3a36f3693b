// The listener's second way in. Besides base-URL requests the
// same port serves as an HTTP forward proxy (HTTPS_PROXY): absolute-form
// plain-HTTP requests and CONNECT, which goproxy intercepts with a leaf
// from the local CA, except --tunnel hosts, passed through untouched.

package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/elazarl/goproxy"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// ForwardProxy configures interception (Config.Forward).
type ForwardProxy struct {
	// Leaf returns the certificate presented to clients for an
	// intercepted host (a name or IP, no port); the CLI passes its local
	// CA's. Required: New refuses a ForwardProxy without it.
	Leaf func(host string) (*tls.Certificate, error)
	// Tunnel lists hosts ("auth.example.com", or "*.example.com" for any
	// subdomain) whose CONNECT is passed through untouched and never
	// recorded while recording, and refused in replay. Nil intercepts
	// every host.
	Tunnel []string
	// AllowLocal lists hosts (as Tunnel does) that a peer off loopback may
	// reach through the forward proxy although they are this machine's:
	// a loopback, link-local (169.254.0.0/16, the cloud metadata service)
	// or own address, by address or by a name resolving to one. Nil
	// allows none; clients on loopback reach any host.
	AllowLocal []string
}

// check validates the configuration when New runs.
func (f *ForwardProxy) check() error {
	if f == nil {
		return nil
	}
	if f.Leaf == nil {
		return errors.New("forward proxy: no CA to sign intercepted hosts' certificates with")
	}
	for _, p := range f.Tunnel {
		if err := proxyopt.CheckHostPattern(p); err != nil {
			return fmt.Errorf("forward proxy: tunnel host pattern: %v", err)
		}
	}
	for _, p := range f.AllowLocal {
		if err := proxyopt.CheckHostPattern(p); err != nil {
			return fmt.Errorf("forward proxy: allowed local host pattern: %v", err)
		}
	}
	return nil
}

// matchHost reports whether host matches pattern: exactly, or for
// "*.domain" any name ending in ".domain" (not domain itself), both
// canonicalised, so "LocalHost." is localhost.
func matchHost(pattern, host string) bool {
	host = canonicalHost(host)
	if suffix, ok := strings.CutPrefix(pattern, "*"); ok {
		suffix = canonicalHost(suffix)
		return len(host) > len(suffix) && strings.HasSuffix(host, suffix)
	}
	return canonicalHost(pattern) == host
}

// isGeminiHost: the hosts whose traffic is model traffic, handled exactly
// as base-URL requests are. See ../shared/reference/gemini-wire.md §1.
func isGeminiHost(host string) bool {
	host = canonicalHost(host)
	switch {
	case host == "generativelanguage.googleapis.com", host == "aiplatform.googleapis.com":
		return true
	case strings.HasSuffix(host, "-aiplatform.googleapis.com"):
		return !strings.Contains(strings.TrimSuffix(host, "-aiplatform.googleapis.com"), ".")
	case strings.HasPrefix(host, "aiplatform.") && strings.HasSuffix(host, ".rep.googleapis.com"):
		region := strings.TrimSuffix(strings.TrimPrefix(host, "aiplatform."), ".rep.googleapis.com")
		return region != "" && !strings.Contains(region, ".")
	}
	return false
}

// Handler is what to serve on the listener. Without Config.Forward it is
// the Server itself. With it, a request in absolute form or a CONNECT goes
// to the forward proxy and everything else, untouched, to the Server.
func (s *Server) Handler() http.Handler {
	if s.cfg.Forward == nil {
		return s
	}
	return &front{base: s, proxy: s.newForwardProxy()}
}

type front struct {
	base  *Server
	proxy *goproxy.ProxyHttpServer
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// An absolute-form request for this listener's own address comes from
	// a client that sends its base-URL calls through HTTP_PROXY although
	// NO_PROXY lists loopback, or from a peer hoping to reach the control
	// API from loopback: either way it is served here, as its peer's.
	if r.Method == http.MethodConnect {
		// A tunnel leaves net/http's timeouts behind (hijacked.go).
		f.proxy.ServeHTTP(closeWhenIdle(w, f.base.cfg.Limits.IdleTimeout), r)
		return
	}
	if r.URL.IsAbs() && !forSelf(r, localAddr(r)) {
		f.proxy.ServeHTTP(w, r)
		return
	}
	f.base.ServeHTTP(w, r)
}

// newForwardProxy sets goproxy up so that every request it receives, in a
// tunnel it intercepts or in absolute form, is answered by one of our
// handlers: Gemini hosts by the Server (record, replay, verify), the rest
// by toolTraffic. goproxy itself never sends a request upstream.
func (s *Server) newForwardProxy() *goproxy.ProxyHttpServer {
	fw := s.cfg.Forward
	gp := goproxy.NewProxyHttpServer()
	gp.Logger = slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)
	gp.Tr = &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("adkproxy: the forward proxy does not send requests itself")
	}}
	dial := newDialer(s.cfg.ConnectTo)
	gp.ConnectDialWithReq = func(r *http.Request, network, addr string) (net.Conn, error) {
		ctx, err := s.guardLocal(r, hostOnly(addr)) // forward_local.go
		if err != nil {
			s.report.failed()
			s.log.Warn("tunnel refused: a peer off loopback asked for this machine", "host", addr, "peer", r.RemoteAddr)
			return nil, err
		}
		return dial.DialContext(ctx, network, addr)
	}
	tool := s.toolTraffic()
	intercept := &goproxy.ConnectAction{Action: goproxy.ConnectMitm, TLSConfig: func(host string, _ *goproxy.ProxyCtx) (*tls.Config, error) {
		cert, err := fw.Leaf(hostOnly(host))
		if err != nil {
			return nil, err
		}
		return &tls.Config{Certificates: []tls.Certificate{*cert}}, nil
	}}
	gp.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
		// The requests of an intercepted tunnel carry no connection of
		// their own: they are judged by the CONNECT's (control_guard.go).
		ctx.UserData = localAddr(ctx.Req)
		if connectToSelf(ctx.Req, host) {
			return intercept, host // never a raw tunnel back into this listener
		}
		name := hostOnly(host)
		for _, p := range fw.Tunnel {
			if !matchHost(p, name) {
				continue
			}
			if s.cfg.Mode == ModeReplay {
				msg := fmt.Sprintf("%s is a --tunnel host: its traffic is never recorded, so replay refuses it", name)
				s.report.failed()
				s.log.Warn("tunnel refused in replay", "host", name)
				ctx.Resp = errorResponse(ctx.Req, http.StatusBadGateway, msg)
				return &goproxy.ConnectAction{Action: goproxy.ConnectReject}, host
			}
			s.log.Debug("tunnelled, not recorded", "host", host)
			return goproxy.OkConnect, host
		}
		return intercept, host
	})
	gp.OnRequest().DoFunc(func(r *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
		for _, h := range []string{"Proxy-Connection", "Proxy-Authorization"} {
			r.Header.Del(h) // meant for this proxy, never for a cassette or an upstream
		}
		var h http.Handler = tool
		local, _ := ctx.UserData.(*net.TCPAddr)
		if local == nil {
			local = localAddr(r)
		}
		if isGeminiHost(r.URL.Hostname()) || forSelf(r, local) {
			h = s
		} else if s.cfg.Mode != ModeReplay { // replay dials nothing
			guarded, err := s.guardLocal(r, r.URL.Hostname()) // forward_local.go
			if err != nil {
				s.report.failed()
				s.log.Warn("forward proxy refused: a peer off loopback asked for this machine", "host", r.URL.Host, "peer", r.RemoteAddr)
				return r, deniedResponse(r, err.Error())
			}
			r = r.WithContext(guarded)
		}
		return r, respond(h, r)
	})
	return gp
}

// hostOnly drops the port from "host:port".
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
