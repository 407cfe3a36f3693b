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

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// BenchmarkInterceptedReplay is one replayed call (4 KB JSON request, 2 KB
// answer) reached the way an HTTPS_PROXY client reaches it: CONNECT, TLS
// with a leaf from the local CA, keep-alive connections, so handshakes are
// amortised. call=tool is a tool's call to its own API (a tool exchange,
// matched by host, path, query and body), call=gemini a generateContent
// call to Gemini's default host. via=direct is the same bytes from a
// static TLS server, the floor to compare with (make bench: the tool call
// at c=16 must reach 0.5× of it), at 1 and 16 concurrent clients.
func BenchmarkInterceptedReplay(b *testing.B) {
	const toolHost, toolPath = "api.example.test", "/v1/search"
	local := newCA(b)
	tool := &cassettes.Exchange{
		Request: cassettes.Request{Scheme: "https", Host: toolHost, Method: http.MethodPost, Path: toolPath,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: workload.Request()},
		Response: cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}},
			Body: workload.JSONResponse(), End: cassettes.EndComplete},
	}
	srv := benchServer(b, append(workload.Exchanges(), tool), func(c *proxy.Config) { c.Forward = &proxy.ForwardProxy{Leaf: local.Leaf} })
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
	urls := map[string]string{"tool": "https://" + toolHost + toolPath, "gemini": "https://generativelanguage.googleapis.com" + workload.JSONPath}
	call := func(b *testing.B, c *http.Client, url string) {
		resp, err := c.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		n := len(got)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n != len(answer) {
			b.Fatalf("status %d, %d bytes: %s", resp.StatusCode, n, got)
		}
	}
	for _, conc := range []int{1, 16} {
		for _, via := range []struct {
			name, url string
			client    *http.Client
		}{{"proxy/call=tool", urls["tool"], viaProxy}, {"proxy/call=gemini", urls["gemini"], viaProxy}, {"direct", urls["tool"], direct}} {
			b.Run(fmt.Sprintf("via=%s/c=%d", via.name, conc), func(b *testing.B) {
				b.SetBytes(int64(len(body) + len(answer)))
				b.ReportAllocs()
				if conc == 1 {
					for b.Loop() {
						call(b, via.client, via.url)
					}
					return
				}
				b.SetParallelism((conc + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						call(b, via.client, via.url)
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
