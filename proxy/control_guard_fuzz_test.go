package proxy

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// FuzzControlRequestClassifier: whatever a peer puts in a request line,
// Host, Origin, Content-Type or CONNECT target, the classifier never lets
// a non-loopback peer without the token, or a page of another origin, use
// the control API, and never takes a target on another port for the proxy;
// names are compared canonicalised (case, trailing dots).
func FuzzControlRequestClassifier(f *testing.F) {
	for _, s := range [][5]string{
		{"GET", "127.0.0.1:9787", "", "", "127.0.0.1:5555"},
		{"PUT", "localhost.:9787", "http://attacker.example", "text/plain", "198.18.0.2:1"},
		{"POST", "[::1]:9787", "null", "application/json; charset=utf-8", "[::1]:2"},
		{"POST", "attacker.example", "", "application/json", "127.0.0.1:3"},
		{"CONNECT", "LOCALHOST...:9787", "http://127.0.0.1:9787", "", "10.0.0.1:4"},
		{"GET", "0.0.0.0", "", "", "[fe80::1%eth0]:5"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], "token")
	}
	local := &net.TCPAddr{IP: net.IPv4(198, 18, 0, 1), Port: 9787}
	st := selfTargets{
		lookup: func(_ context.Context, host string) ([]net.IP, error) {
			if strings.HasPrefix(host, "rebind") {
				return []net.IP{net.IPv4(127, 0, 0, 1)}, nil
			}
			return nil, nil
		},
		interfaceIPs: func() []net.IP { return []net.IP{local.IP} },
	}
	f.Fuzz(func(t *testing.T, method, host, origin, contentType, remote, bearer string) {
		s := &Server{cfg: Config{ControlToken: "the-token"}}
		r := &http.Request{Method: method, Host: host, RemoteAddr: remote, Header: http.Header{}}
		r.URL = &url.URL{Path: proxyopt.ControlFlush}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("Authorization", "Bearer "+bearer)
		code, msg := s.controlAllowed(r)
		if code != 0 && msg == "" {
			t.Fatalf("refused with %d and no reason", code)
		}
		if code == 0 {
			if bearer != "the-token" && !isLoopbackPeer(remote) {
				t.Fatalf("non-loopback peer %q without the token allowed", remote)
			}
			if origin != "" && !strings.EqualFold(origin, "http://"+host) {
				t.Fatalf("Origin %q allowed for Host %q", origin, host)
			}
		}

		self := st.is(context.Background(), local, host, "80")
		if h, p, err := net.SplitHostPort(host); err == nil {
			if self && p != "9787" {
				t.Fatalf("%q taken for the proxy on port 9787", host)
			}
			if variant := net.JoinHostPort(strings.ToUpper(h)+".", p); self != st.is(context.Background(), local, variant, "80") && net.ParseIP(h) == nil && isASCII(h) {
				t.Fatalf("%q and %q classified differently", host, variant)
			}
		} else if self {
			t.Fatalf("%q (port 80 by default) taken for the proxy on port 9787", host)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
