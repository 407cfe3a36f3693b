package proxy_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testutil"
	"github.com/adkproxy/adkproxy/internal/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// BenchmarkInterceptedReplay is one replayed generateContent call (4 KB
// request, 2 KB answer) reached the way an HTTPS_PROXY client reaches it:
// CONNECT, TLS with a leaf from the local CA, keep-alive connections, so
// handshakes are amortised. via=direct is the same bytes from a static TLS
// server, the floor to compare with, at 1 and 16 concurrent clients.
func BenchmarkInterceptedReplay(b *testing.B) {
	const host = "generativelanguage.googleapis.com"
	local := newCA(b)
	srv := benchServer(b, workload.Exchanges(), func(c *proxy.Config) { c.Forward = &proxy.ForwardProxy{Leaf: local.Leaf} })
	front := httptest.NewServer(srv.Handler())
	defer front.Close()

	answer := workload.JSONResponse()
	static := testutil.StartCounting(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write(answer)
	}), local.Leaf)

	viaProxy := proxiedClient(front.URL, poolOf(local))
	direct := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: poolOf(local)},
		MaxIdleConnsPerHost: 16,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, static.Addr())
		},
	}}
	body := workload.Request()
	url := "https://" + host + workload.JSONPath
	call := func(b *testing.B, c *http.Client) {
		resp, err := c.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n != int64(len(answer)) {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
	for _, conc := range []int{1, 16} {
		for _, via := range []struct {
			name   string
			client *http.Client
		}{{"proxy", viaProxy}, {"direct", direct}} {
			b.Run(fmt.Sprintf("via=%s/c=%d", via.name, conc), func(b *testing.B) {
				b.SetBytes(int64(len(body) + len(answer)))
				b.ReportAllocs()
				if conc == 1 {
					for b.Loop() {
						call(b, via.client)
					}
					return
				}
				b.SetParallelism((conc + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						call(b, via.client)
					}
				})
			})
		}
	}
}

// BenchmarkReplayJSONWithForwardProxy is BenchmarkReplayJSON with the
// forward proxy on: base-URL requests pay only the dispatch check.
func BenchmarkReplayJSONWithForwardProxy(b *testing.B) {
	local := newCA(b)
	benchReplay(b, workload.JSONPath, len(workload.JSONResponse()), func(c *proxy.Config) { c.Forward = &proxy.ForwardProxy{Leaf: local.Leaf} })
}
