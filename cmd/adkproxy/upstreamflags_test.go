package main

import (
	"net"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/proxy"
)

// FuzzParseConnectTo: --connect-to is the one piece of proxy addressing
// adkproxy parses itself (CONNECT and absolute-form requests are parsed by
// net/http and goproxy). Whatever the input, it either errors with the
// usage hint or gives two HOST:PORT addresses, the first lower-cased.
func FuzzParseConnectTo(f *testing.F) {
	for _, s := range []string{"generativelanguage.googleapis.com:443=127.0.0.1:8443", "[::1]:443=[::1]:1", "a:1=b:2=c:3", "=", ":=:", "h:443=", "H:80=x:65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rule, err := parseConnectTo(s)
		if err != nil {
			if !strings.Contains(err.Error(), "HOST:PORT=ADDR") {
				t.Fatalf("%q: error without the usage hint: %v", s, err)
			}
			return
		}
		for _, hp := range []string{rule.From, rule.To} {
			if h, _, err := net.SplitHostPort(hp); err != nil || h == "" {
				t.Fatalf("%q: accepted %q, not HOST:PORT", s, hp)
			}
		}
		if rule.From != strings.ToLower(rule.From) {
			t.Fatalf("%q: From %q is not lower-case", s, rule.From)
		}
	})
}

func TestParseConnectTo(t *testing.T) {
	t.Parallel()
	got, err := parseConnectTo("Generativelanguage.googleapis.com:443=127.0.0.1:8443")
	if err != nil || got != (proxy.ConnectTo{From: "generativelanguage.googleapis.com:443", To: "127.0.0.1:8443"}) {
		t.Errorf("got %+v, %v", got, err)
	}
	if got, err := parseConnectTo("[::1]:443=[::1]:8443"); err != nil || got.To != "[::1]:8443" {
		t.Errorf("IPv6: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "host:443", "host=1.2.3.4:1", "host:443=1.2.3.4", ":443=1.2.3.4:1", "h:0=1.2.3.4:1", "h:443=1.2.3.4:99999", "h:x=a:1"} {
		if _, err := parseConnectTo(bad); err == nil || !strings.Contains(err.Error(), "HOST:PORT=ADDR") {
			t.Errorf("%q: err %v, want a usage hint", bad, err)
		}
	}
}
