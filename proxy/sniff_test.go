package proxy_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// startSniffing serves a proxy on a listener that speaks TLS to clients
// that open with a handshake, and returns its port and the CA's roots.
func startSniffing(t *testing.T, cfg proxy.Config) (srv *proxy.Server, port string, roots *x509.CertPool) {
	t.Helper()
	auth, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots = x509.NewCertPool()
	roots.AddCert(auth.Cert)
	srv, err = proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(proxyopt.SniffTLS(proxyopt.LimitListener(ln, 0, nil), auth.Leaf))
	t.Cleanup(func() { hs.Close() })
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return srv, port, roots
}

// TestSniffTLSServesBothOnOnePort: https:// (by IP and by localhost) and
// plain http:// reach the same proxy on the same port, and a Live session
// runs over wss://.
func TestSniffTLSServesBothOnOnePort(t *testing.T) {
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	_, port, roots := startSniffing(t, proxy.Config{Mode: proxy.ModeRecord, Dir: testutil.OutDir(t), Upstream: mustURL(t, up.URL)})
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}, Timeout: 30 * time.Second}
	for _, base := range []string{"https://127.0.0.1:" + port, "https://localhost:" + port, "http://127.0.0.1:" + port} {
		resp, err := client.Get(base + "/v1beta/models")
		if err != nil {
			t.Fatalf("GET %s: %v", base, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "gemini-2.5-flash") {
			t.Errorf("GET %s: %d %s", base, resp.StatusCode, b)
		}
		if strings.HasPrefix(base, "https") != (resp.TLS != nil) {
			t.Errorf("GET %s: TLS state %v", base, resp.TLS != nil)
		}
	}
	dialer := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: roots}}
	conn, _, err := dialer.Dial("wss://127.0.0.1:"+port+"/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent", nil)
	if err != nil {
		t.Fatalf("wss: %v", err)
	}
	defer conn.Close()
	got := rawSession(&liveConn{t, conn}, setupFrame, questionFrame, toolFrame)
	if !strings.Contains(got[len(got)-1], "usageMetadata") {
		t.Fatalf("the Live session over wss got %q", got)
	}
}

// TestSniffTLSKeepAlive: on one kept-alive connection, plain and TLS,
// requests sent together (so the first read takes more than the first) and
// then one by one, with a body larger than the first read, are all answered
// in order: what the listener peeked is read first, then the connection.
func TestSniffTLSKeepAlive(t *testing.T) {
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	_, port, roots := startSniffing(t, proxy.Config{Mode: proxy.ModeRecord, Dir: testutil.OutDir(t), Upstream: mustURL(t, up.URL)})
	big := `{"contents":[{"role":"user","parts":[{"text":"` + strings.Repeat("long question ", 1000) + `"}]}]}`
	post := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", generatePath, len(big), big)
	get := "GET /v1beta/models HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, useTLS := range []bool{false, true} {
		raw, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		conn := raw
		if useTLS {
			conn = tls.Client(raw, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(conn)
		expect := func(what string, n int) {
			t.Helper()
			for i := range n {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("TLS %v, %s, answer %d: %v", useTLS, what, i+1, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("TLS %v, %s, answer %d: status %d", useTLS, what, i+1, resp.StatusCode)
				}
			}
		}
		io.WriteString(conn, get+post+get) // together
		expect("sent together", 3)
		for range 3 { // one by one
			io.WriteString(conn, post)
			expect("sent one by one", 1)
		}
		conn.Close()
	}
}

// TestSniffTLSRefusesOtherNames: the listener makes no certificate for a
// name that is not its own, so it cannot stand in for another host.
func TestSniffTLSRefusesOtherNames(t *testing.T) {
	_, port, roots := startSniffing(t, proxy.Config{Mode: proxy.ModeReplay, Dir: t.TempDir()})
	conn, err := tls.Dial("tcp", "127.0.0.1:"+port, &tls.Config{RootCAs: roots, ServerName: "generativelanguage.googleapis.com"})
	if err == nil {
		conn.Close()
		t.Fatal("the listener made a certificate for generativelanguage.googleapis.com")
	}
}
