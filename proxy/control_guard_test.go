package proxy_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// serveOnBoth serves cfg's proxy, forward proxy and all, on one port of two
// addresses at once: the host side of peer's link and 127.0.0.1, as
// --listen 0.0.0.0 would, without opening the port to the machine's real
// network. It returns the server and the port.
func serveOnBoth(t *testing.T, cfg proxy.Config, peer *testutil.Peer) (*proxy.Server, string) {
	t.Helper()
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outside, err := net.Listen("tcp", net.JoinHostPort(peer.HostIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(outside.Addr().(*net.TCPAddr).Port)
	inside, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		outside.Close()
		t.Skipf("port %s is taken on loopback: %v", port, err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(outside)
	go hs.Serve(inside)
	t.Cleanup(func() { hs.Close() })
	return srv, port
}

// TestControlThroughTheForwardProxyIsJudgedByItsPeer: a peer on another
// host (a network namespace) that may not use the control API directly
// cannot reach it by asking the forward proxy to fetch the proxy's own
// address, in any spelling, in absolute form or through a CONNECT tunnel:
// every such request is answered as the peer's own control request (401),
// changes nothing and is recorded nowhere.
func TestControlThroughTheForwardProxyIsJudgedByItsPeer(t *testing.T) {
	peer := testutil.NewPeer(t)
	const token = "control-token-for-the-test"
	dir := t.TempDir()
	local := newCA(t)
	srv, port := serveOnBoth(t, proxy.Config{
		Mode: proxy.ModeRecord, Dir: dir, ControlToken: token,
		Forward: &proxy.ForwardProxy{Leaf: local.Leaf, Tunnel: []string{"localhost"}},
	}, peer)
	proxyURL := &url.URL{Scheme: "http", Host: net.JoinHostPort(peer.HostIP.String(), port)}
	viaProxy := peer.Client(http.ProxyURL(proxyURL))
	direct := peer.Client(nil)

	send := func(c *http.Client, method, target, bearer string) (int, string) {
		t.Helper()
		body := ""
		if method == http.MethodPut {
			body = `{"name":"hijacked"}`
		}
		req, err := http.NewRequest(method, target, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	if code, body := send(direct, http.MethodPut, "http://"+proxyURL.Host+proxyopt.ControlCassette, ""); code != http.StatusUnauthorized ||
		!strings.Contains(body, `"status": "`+refusalStatus[code]+`"`) {
		t.Fatalf("the peer's own PUT got %d %s, want 401 (status UNAUTHENTICATED): the peer is not loopback", code, body)
	}
	for _, host := range []string{"127.0.0.1", "localhost", "LocalHost.", "0.0.0.0", "127.0.0.2", "[::1]", "app.localhost", peer.HostIP.String()} {
		for _, c := range []struct{ method, path string }{
			{http.MethodPut, proxyopt.ControlCassette},
			{http.MethodGet, proxyopt.ControlHealth},
			{http.MethodGet, proxyopt.ControlReport},
			{http.MethodPost, proxyopt.ControlFlush},
		} {
			target := "http://" + net.JoinHostPort(strings.Trim(host, "[]"), port) + c.path
			if code, body := send(viaProxy, c.method, target, ""); code != http.StatusUnauthorized {
				t.Errorf("%s %s through the forward proxy: %d %s, want 401 (the peer's own control request)", c.method, target, code, body)
			}
		}
	}
	// The token still works through the proxy: it is the peer that is judged.
	if code, body := send(viaProxy, http.MethodGet, "http://127.0.0.1:"+port+proxyopt.ControlHealth, token); code != http.StatusOK {
		t.Errorf("health with the token through the forward proxy: %d %s, want 200", code, body)
	}

	// A --tunnel host naming the proxy is intercepted, never a raw tunnel
	// into the listener from loopback.
	for _, name := range []string{"localhost", "localhost."} {
		conn, err := peer.DialContext(t.Context(), "tcp", proxyURL.Host)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", name, port, name, port)
		br := bufio.NewReader(conn)
		if resp, err := http.ReadResponse(br, nil); err == nil && resp.StatusCode == http.StatusOK {
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", proxyopt.ControlHealth)
			if inner, err := http.ReadResponse(br, nil); err == nil && inner.StatusCode == http.StatusOK {
				t.Errorf("a plain request inside CONNECT %s:%s reached the control API (200): the tunnel went back into the listener from loopback", name, port)
			}
		}
		conn.Close()
	}
	// Inside an intercepted tunnel, the request is the peer's again.
	tlsPeer := &http.Client{Transport: &http.Transport{
		DialContext: peer.DialContext, Proxy: http.ProxyURL(proxyURL),
		TLSClientConfig: &tls.Config{RootCAs: poolOf(local)}, DisableKeepAlives: true,
	}}
	if code, body := send(tlsPeer, http.MethodPut, "https://127.0.0.1:"+port+proxyopt.ControlCassette, ""); code != http.StatusUnauthorized {
		t.Errorf("PUT inside CONNECT 127.0.0.1:%s: %d %s, want 401", port, code, body)
	}

	if got := srv.DefaultCassette(); got != cassettes.DefaultName {
		t.Errorf("the default cassette is now %q: a refused PUT changed it", got)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range loaded {
		for _, x := range c.Exchanges {
			if strings.Contains(x.Request.Path, strings.TrimSuffix(proxy.ControlPrefix, "/")) {
				t.Errorf("cassette %s recorded %s %s%s as traffic", name, x.Request.Method, x.Request.Host, x.Request.Path)
			}
		}
	}
}

// TestControlRefusesWebPages: a page on another site, which a browser lets
// send simple requests to localhost, cannot use the control API (an
// Origin that is not the proxy, a Host that is not a loopback name, a
// state-changing call without a JSON body type), nor have a text/plain
// model request recorded; the proxy's own clients still can.
func TestControlRefusesWebPages(t *testing.T) {
	gemini := &fakegemini.Handler{}
	up := testutil.StartCounting(t, gemini, nil)
	dir := t.TempDir()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	host := strings.TrimPrefix(rec.URL, "http://")

	send := func(method, path string, header map[string]string, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, rec.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const foreign = "http://attacker.example"
	jsonType := "application/json"
	for _, c := range []struct {
		what, method, path string
		header             map[string]string
		want               int
		says               string
	}{
		{"no-cors flush from a page", http.MethodPost, proxyopt.ControlFlush, map[string]string{"Origin": foreign, "Content-Type": "text/plain"}, http.StatusForbidden, "web page"},
		{"JSON flush from a page", http.MethodPost, proxyopt.ControlFlush, map[string]string{"Origin": foreign, "Content-Type": jsonType}, http.StatusForbidden, "web page"},
		{"opaque origin", http.MethodGet, proxyopt.ControlHealth, map[string]string{"Origin": "null"}, http.StatusForbidden, "web page"},
		{"rebound name", http.MethodGet, proxyopt.ControlHealth, map[string]string{"Host": "attacker.example"}, http.StatusForbidden, "localhost"},
		{"rebound name with port", http.MethodPut, proxyopt.ControlCassette, map[string]string{"Host": "attacker.example:" + strings.Split(host, ":")[1], "Content-Type": jsonType}, http.StatusForbidden, "localhost"},
		{"flush without a body type", http.MethodPost, proxyopt.ControlFlush, nil, http.StatusUnsupportedMediaType, "application/json"},
		{"form PUT", http.MethodPut, proxyopt.ControlCassette, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "application/json"},
		{"flush, JSON", http.MethodPost, proxyopt.ControlFlush, map[string]string{"Content-Type": jsonType}, http.StatusOK, `"ok"`},
		{"health as localhost", http.MethodGet, proxyopt.ControlHealth, map[string]string{"Host": "localhost:1234"}, http.StatusOK, `"ok"`},
		{"health from the proxy's own page", http.MethodGet, proxyopt.ControlHealth, map[string]string{"Origin": "http://" + host}, http.StatusOK, `"ok"`},
		{"text/plain model call from a page", http.MethodPost, generatePath, map[string]string{"Origin": foreign, "Content-Type": "text/plain"}, http.StatusForbidden, "web page"},
	} {
		body := ""
		if c.method == http.MethodPut {
			body = `{"name":"from-a-page"}`
		}
		code, msg := send(c.method, c.path, c.header, body)
		if code != c.want || !strings.Contains(msg, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.what, code, msg, c.want, c.says)
		}
		// A refusal's Gemini-style status is google.rpc's name for its HTTP code.
		if status := refusalStatus[code]; status != "" && !strings.Contains(msg, `"status": "`+status+`"`) {
			t.Errorf("%s: a %d whose body does not say status %s: %s", c.what, code, status, msg)
		}
	}
	if rec.DefaultCassette() != cassettes.DefaultName {
		t.Errorf("default cassette changed to %q", rec.DefaultCassette())
	}
	if n := len(gemini.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests; a page's text/plain model call must not be forwarded", n)
	}
	// The SDK's own JSON call with a page's Origin is a browser app's, and passes.
	if code, msg := send(http.MethodPost, generatePath, map[string]string{"Origin": foreign, "Content-Type": jsonType}, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`); code != http.StatusOK {
		t.Errorf("a JSON model call with an Origin: %d %s, want 200", code, msg)
	}
}

// refusalStatus is the google.rpc.Code name a control refusal's body gives
// for its HTTP code: a wrong body type is an invalid argument, not a
// missing permission.
var refusalStatus = map[int]string{
	http.StatusUnauthorized:         "UNAUTHENTICATED",
	http.StatusForbidden:            "PERMISSION_DENIED",
	http.StatusUnsupportedMediaType: "INVALID_ARGUMENT",
}
