package proxy_test

import (
	"io"
	"os"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestTunnelHostWithTrailingDotIsTunnelled: a --tunnel host named with a
// trailing dot or in other case (the same host to DNS) is still tunnelled,
// untouched and never recorded, not intercepted and recorded.
func TestTunnelHostWithTrailingDotIsTunnelled(t *testing.T) {
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	auth := testutil.StartCounting(t, weather, public.Leaf)
	routes := []proxy.ConnectTo{{From: "oauth.tunnel.test:443", To: auth.Addr()}, {From: "oauth.tunnel.test.:443", To: auth.Addr()}}
	fw := &proxy.ForwardProxy{Leaf: local.Leaf, Tunnel: []string{"oauth.tunnel.test"}}
	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, Forward: fw})
	resp, err := proxiedClient(recHTTP.URL, poolOf(local, public)).Get("https://OAuth.Tunnel.Test./token?city=Rome")
	if err != nil {
		t.Fatalf("through the tunnel: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// Both test CAs have one name: tell them apart by signature.
	if err := resp.TLS.PeerCertificates[0].CheckSignatureFrom(public.Cert); err != nil || resp.StatusCode != 200 {
		t.Errorf("the client got %d %s with a certificate not from the host itself (%v): the tunnel host was intercepted", resp.StatusCode, body, err)
	}
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a tunnel host was recorded: %d file(s) in the cassette folder", len(entries))
	}
}
