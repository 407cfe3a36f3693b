package proxy_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// newCA makes a CA in a fresh folder.
func newCA(t testing.TB) *ca.Authority {
	t.Helper()
	a, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func poolOf(as ...*ca.Authority) *x509.CertPool {
	p := x509.NewCertPool()
	for _, a := range as {
		p.AddCert(a.Cert)
	}
	return p
}

// serveForward serves cfg's proxy on loopback, Handler and all, as the CLI does.
func serveForward(t testing.TB, cfg proxy.Config) (*proxy.Server, *httptest.Server) {
	t.Helper()
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatalf("proxy.New: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return srv, hs
}

// proxiedClient reaches every host through proxyURL, as a client with only
// HTTPS_PROXY and SSL_CERT_FILE set does: it trusts the given CAs alone.
func proxiedClient(proxyURL string, trust *x509.CertPool) *http.Client {
	u, _ := url.Parse(proxyURL)
	return &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyURL(u),
		TLSClientConfig:     &tls.Config{RootCAs: trust},
		MaxIdleConnsPerHost: 16,
	}}
}

// TestForwardProxyGenaiRecordThenReplay: the genai client with no base URL,
// only a proxy and trust in the local CA, reaches its default hosts through
// the interception path; recording sends them, by --connect-to and
// --upstream-ca, to a TLS fake Gemini; replay, with that upstream stopped,
// gives the same results.
func TestForwardProxyGenaiRecordThenReplay(t *testing.T) {
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	gemini := &fakegemini.Handler{}
	up := testutil.StartCounting(t, gemini, public.Leaf)
	routes := []proxy.ConnectTo{
		{From: "generativelanguage.googleapis.com:443", To: up.Addr()},
		{From: "us-central1-aiplatform.googleapis.com:443", To: up.Addr()},
	}
	rec, recHTTP := serveForward(t, proxy.Config{
		Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, UpstreamRoots: poolOf(public),
		Forward: &proxy.ForwardProxy{Leaf: local.Leaf},
	})
	recorded := genaiScenarioVia(t, "", proxiedClient(recHTTP.URL, poolOf(local)))
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close()
	if n := len(gemini.Requests()); n == 0 || rec.Stats().Recorded != int64(n) {
		t.Fatalf("recorded %d exchanges for %d upstream requests", rec.Stats().Recorded, n)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key appears %d times in the cassettes", n)
	}

	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	replayed := genaiScenarioVia(t, "", proxiedClient(repHTTP.URL, poolOf(local)))
	if st := rep.Stats(); st.Unmatched+st.Mismatched != 0 || st.Replayed != rec.Stats().Recorded {
		t.Errorf("replay stats %+v; misses %+v", st, rep.Misses())
	}
	if len(recorded) != 7 {
		t.Errorf("scenario produced %d results, want 7", len(recorded))
	}
	for name, want := range recorded {
		if got := replayed[name]; got != want {
			t.Errorf("%s differs on replay:\nrecorded %s\nreplayed %s", name, want, got)
		}
	}
}

// weather is a tool's API: it answers with what it was asked.
var weather = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"host":"`+r.Host+`","city":"`+r.URL.Query().Get("city")+`","temp_c":18}`)
})

// TestForwardProxyTunnel: a --tunnel host is passed through untouched (the
// client sees the host's own certificate, end to end), nothing about it is
// written, and in replay its CONNECT is refused without a connection.
func TestForwardProxyTunnel(t *testing.T) {
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	auth := testutil.StartCounting(t, weather, public.Leaf)
	routes := []proxy.ConnectTo{{From: "oauth.tunnel.test:443", To: auth.Addr()}}
	fw := &proxy.ForwardProxy{Leaf: local.Leaf, Tunnel: []string{"*.tunnel.test"}}
	const target = "https://oauth.tunnel.test/token?city=Rome"

	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, Forward: fw})
	resp, err := proxiedClient(recHTTP.URL, poolOf(local, public)).Get(target)
	if err != nil {
		t.Fatalf("through the tunnel: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := resp.TLS.PeerCertificates[0].Issuer.CommonName; got != public.Cert.Subject.CommonName {
		t.Errorf("tunnelled client saw a certificate from %q, want the host's own (%q)", got, public.Cert.Subject.CommonName)
	}
	if string(body) != `{"host":"oauth.tunnel.test","city":"Rome","temp_c":18}` {
		t.Errorf("tunnelled body %s", body)
	}
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a tunnel was recorded: %d file(s) in the cassette folder", len(entries))
	}

	before := auth.Conns()
	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: fw})
	if _, err := proxiedClient(repHTTP.URL, poolOf(local, public)).Get(target); err == nil || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("tunnel in replay: err %v, want the CONNECT refused with 502", err)
	}
	if n := auth.Conns() - before; n != 0 {
		t.Errorf("replay opened %d connection(s) to the tunnel host", n)
	}
	if rep.Stats().Failed != 1 {
		t.Errorf("the refused tunnel was not counted: %+v", rep.Stats())
	}
}

// TestForwardProxyLeavesBaseURLAlone: with interception on, base-URL
// requests on the same listener are served exactly as before.
func TestForwardProxyLeavesBaseURLAlone(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	_, hs := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: t.TempDir(), Upstream: mustURL(t, up.URL), Forward: &proxy.ForwardProxy{Leaf: newCA(t).Leaf}})
	resp := post(t, hs.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "candidates") {
		t.Errorf("base-URL request with interception on: %d %s", resp.StatusCode, body)
	}
}

// A client that sends even its base-URL calls through HTTP_PROXY reaches
// the proxy with the proxy's own address in absolute form: that is
// base-URL traffic, replayed as such, not an unrecorded tool host.
func TestForwardProxyAbsoluteFormToItself(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := t.TempDir()
	local := newCA(t)
	const req = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL), Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	post(t, recHTTP.URL, generatePath, nil, req).Body.Close()
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	client := proxiedClient(repHTTP.URL, nil)
	resp, err := client.Post(repHTTP.URL+generatePath, "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || rep.Stats().Replayed != 1 {
		t.Errorf("absolute-form base-URL call in replay: %d %s, stats %+v", resp.StatusCode, body, rep.Stats())
	}
}

func TestForwardProxyConfigErrors(t *testing.T) {
	for _, c := range []struct {
		fw   *proxy.ForwardProxy
		want string
	}{
		{&proxy.ForwardProxy{}, "no CA"},
		{&proxy.ForwardProxy{Leaf: newCA(t).Leaf, Tunnel: []string{"https://x.test"}}, `"https://x.test" is not a host name`},
		{&proxy.ForwardProxy{Leaf: newCA(t).Leaf, Tunnel: []string{"x.test:443"}}, `"x.test:443" is not a host name`},
	} {
		_, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: t.TempDir(), Forward: c.fw})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.fw.Tunnel, err, c.want)
		}
	}
}

// TestForwardProxyStreamsEventsInLockstep: through CONNECT and
// interception, a recorded stream still reaches the client event by
// event: the upstream withholds event 2 until the client has event 1.
func TestForwardProxyStreamsEventsInLockstep(t *testing.T) {
	clientGotFirst := make(chan struct{})
	var gaveUp atomic.Bool
	gemini := &fakegemini.Handler{BeforeEvent: func(i int) {
		if i == 1 {
			select {
			case <-clientGotFirst:
			case <-time.After(deadlockGuard):
				gaveUp.Store(true)
			}
		}
	}}
	local, public := newCA(t), newCA(t)
	up := testutil.StartCounting(t, gemini, public.Leaf)
	_, hs := serveForward(t, proxy.Config{
		Mode: proxy.ModeRecord, Dir: testutil.OutDir(t), UpstreamRoots: poolOf(public),
		ConnectTo: []proxy.ConnectTo{{From: "generativelanguage.googleapis.com:443", To: up.Addr()}},
		Forward:   &proxy.ForwardProxy{Leaf: local.Leaf},
	})
	resp, err := proxiedClient(hs.URL, poolOf(local)).Post("https://generativelanguage.googleapis.com"+streamPath, "application/json",
		strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"one two three four five six"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if first := readEvent(t, br); !strings.HasPrefix(first, "data: ") {
		t.Fatalf("first event %q is not a Gemini SSE event", first)
	}
	close(clientGotFirst)
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(rest), "\r\n\r\n"); n != 2 || gaveUp.Load() {
		t.Errorf("after the first event got %d more (want 2); upstream had to give up waiting: %v", n, gaveUp.Load())
	}
}
