package proxy_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/adkproxy/adkproxy/internal/ca"
	"github.com/adkproxy/adkproxy/internal/proxyopt"
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
