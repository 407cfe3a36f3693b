// Keeping peers off this machine: with the listener open to other hosts
// (--listen 0.0.0.0), a peer off loopback could use the forward proxy to
// reach what is bound only to this machine's loopback, its own addresses or
// link-local ones (the cloud metadata service at 169.254.169.254). Such a
// destination is refused unless ForwardProxy.AllowLocal names it. The
// address is checked twice: the name's addresses before anything is sent,
// and the address actually dialled (a name that resolves elsewhere the
// second time, DNS rebinding, is caught there).

package proxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"syscall"
)

// guardKey marks a request context whose dials must not reach this
// machine (see guardedDial).
type guardKey struct{}

// allowLocalFlag is the CLI flag that sets ForwardProxy.AllowLocal, named
// in refusals.
const allowLocalFlag = "--forward-allow-local"

// offLoopback reports whether the request's peer is another host.
func offLoopback(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && !ap.Addr().Unmap().IsLoopback()
}

// allowedLocal reports whether AllowLocal names host (compared as --tunnel
// patterns are).
func (f *ForwardProxy) allowedLocal(host string) bool {
	for _, p := range f.AllowLocal {
		if matchHost(p, host) {
			return true
		}
	}
	return false
}

// guardLocal decides a forward-proxy request to host (no port) from r's
// peer: nil and ctx unchanged for a peer on loopback or an allowed host;
// else an error when host is, or resolves to, an address of this machine,
// and a ctx whose dials check the address they reach.
func (s *Server) guardLocal(r *http.Request, host string) (context.Context, error) {
	ctx := r.Context()
	if !offLoopback(r) || s.cfg.Forward.allowedLocal(host) {
		return ctx, nil
	}
	addrs, err := resolve(ctx, host)
	if err != nil {
		return ctx, nil // the dial fails the same way, and is checked if it does not
	}
	for _, a := range addrs {
		if why := localKind(a); why != "" {
			return ctx, localRefusal(host, a, why)
		}
	}
	return context.WithValue(ctx, guardKey{}, true), nil
}

// deniedResponse is the forward proxy's 403 for a refused destination.
func deniedResponse(r *http.Request, message string) *http.Response {
	rec := httptest.NewRecorder()
	writeError(rec, http.StatusForbidden, statusPermissionDenied, message)
	resp := rec.Result()
	resp.Request = r
	return resp
}

func resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func localRefusal(host string, a netip.Addr, why string) error {
	return fmt.Errorf("the forward proxy does not let a peer off loopback reach %s (%s, %s of this machine); start adkproxy with %s %s to allow it",
		host, a.Unmap(), why, allowLocalFlag, host)
}

// localKind says why a is this machine's, or "".
func localKind(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsUnspecified():
		return "the unspecified address, which reaches"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address, such as the cloud metadata service's,"
	}
	if own, err := net.InterfaceAddrs(); err == nil {
		for _, o := range own {
			if n, ok := o.(*net.IPNet); ok {
				if p, ok := netip.AddrFromSlice(n.IP); ok && p.Unmap() == a {
					return "an address"
				}
			}
		}
	}
	return ""
}

// guardedControl is a net.Dialer Control that refuses an address of this
// machine: the address dialled, after any name was resolved.
func guardedControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil
	}
	if why := localKind(ap.Addr()); why != "" {
		return localRefusal(ap.Addr().String(), ap.Addr(), why)
	}
	return nil
}
