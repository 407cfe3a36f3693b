package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestForwardProxyKeepsPeersOffThisMachine is issue 39 item 7: a peer on
// another host (a network namespace) may not use the recording forward
// proxy to reach a service bound to this machine's loopback, one of its
// own addresses, or link-local addresses (the cloud metadata service),
// by address or by a name that resolves there, in absolute form or in an
// intercepted tunnel; nothing is dialled or recorded. A loopback client
// still reaches them, and ForwardProxy.AllowLocal lets peers reach a host
// it names.
func TestForwardProxyKeepsPeersOffThisMachine(t *testing.T) {
	peer := testutil.NewPeer(t)
	var hits atomic.Int64
	secret := func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "loopback-only secret")
	}
	onLoopback := httptest.NewServer(http.HandlerFunc(secret)) // 127.0.0.1 only
	defer onLoopback.Close()
	_, loPort, _ := net.SplitHostPort(onLoopback.Listener.Addr().String())
	onHost := httptest.NewUnstartedServer(http.HandlerFunc(secret))
	ln, err := net.Listen("tcp", net.JoinHostPort(peer.HostIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	onHost.Listener = ln
	onHost.Start()
	defer onHost.Close()

	start := func(allow []string) (dir, proxyHost string, viaProxy, local *http.Client) {
		dir = t.TempDir()
		_, port := serveOnBoth(t, proxy.Config{
			Mode: proxy.ModeRecord, Dir: dir,
			Forward: &proxy.ForwardProxy{Leaf: newCA(t).Leaf, Tunnel: []string{"localhost"}, AllowLocal: allow},
		}, peer)
		proxyURL := &url.URL{Scheme: "http", Host: net.JoinHostPort(peer.HostIP.String(), port)}
		viaProxy = peer.Client(http.ProxyURL(proxyURL))
		local = &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "127.0.0.1:" + port})}}
		return dir, proxyURL.Host, viaProxy, local
	}
	connect := func(proxyHost, target string) string {
		t.Helper()
		conn, err := peer.DialContext(t.Context(), "tcp", proxyHost)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
		line, _ := bufio.NewReader(conn).ReadString('\n')
		return line
	}
	get := func(c *http.Client, target string) (int, string) {
		t.Helper()
		resp, err := c.Get(target)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	dir, proxyHost, viaProxy, local := start(nil)
	for _, target := range []string{
		onLoopback.URL + "/secret",
		"http://localhost:" + loPort + "/secret",
		"http://127.0.0.2:" + loPort + "/secret",
		"http://[::ffff:127.0.0.1]:" + loPort + "/secret",
		onHost.URL + "/secret",
		"http://169.254.169.254/computeMetadata/v1/",
	} {
		code, body := get(viaProxy, target)
		if code != http.StatusForbidden || strings.Contains(body, "secret\"") || !strings.Contains(body, "--forward-allow-local") {
			t.Errorf("peer GET %s through the forward proxy: %d %s; want 403 naming --forward-allow-local", target, code, body)
		}
	}
	// A --tunnel host is dialled by the proxy itself: checked the same way.
	if line := connect(proxyHost, "localhost:"+loPort); strings.Contains(line, " 200 ") {
		t.Errorf("CONNECT to a --tunnel host on loopback from a peer: %q", line)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback-only service was reached %d time(s) by the peer", n)
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("%d cassette file(s) written for refused requests", n)
	}
	// From loopback the forward proxy reaches loopback as before.
	if code, body := get(local, onLoopback.URL+"/secret"); code != http.StatusOK || body != "loopback-only secret" {
		t.Errorf("loopback client: %d %s", code, body)
	}

	// Allowed by name, the peer gets through.
	_, _, viaProxy, _ = start([]string{"localhost"})
	if code, body := get(viaProxy, "http://localhost:"+loPort+"/secret"); code != http.StatusOK || body != "loopback-only secret" {
		t.Errorf("peer to an allowed host: %d %s", code, body)
	}
	if code, _ := get(viaProxy, onLoopback.URL+"/secret"); code != http.StatusForbidden {
		t.Errorf("peer to 127.0.0.1, only localhost allowed: %d", code)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}
