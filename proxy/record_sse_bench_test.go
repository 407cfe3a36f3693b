package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/adkproxy/adkproxy/internal/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// sseUpstream answers every request in-process with the 20-event stream.
type sseUpstream struct{ body []byte }

func (u sseUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {workload.SSEContentType}}, ContentLength: -1,
		Body: io.NopCloser(bytes.NewReader(u.body)), Request: r}, nil
}

// BenchmarkRecordPassthroughSSE forwards the 4 KB request and tees the
// 20-event answer event by event, keeping nothing (--mode passthrough).
func BenchmarkRecordPassthroughSSE(b *testing.B) {
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, RecordMode: proxy.RecordPassthrough, Dir: b.TempDir(),
		Upstream: &url.URL{Scheme: "http", Host: "upstream.invalid"}, Transport: sseUpstream{workload.SSEBody()}})
	if err != nil {
		b.Fatal(err)
	}
	body := workload.Request()
	want := len(workload.SSEBody())
	b.SetBytes(int64(len(body) + want))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, workload.SSEPath, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(proxy.HeaderInvocation, "bench")
		w := &discardWriter{h: http.Header{}}
		srv.ServeHTTP(w, r)
		if w.status != http.StatusOK || w.n != want {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
}
