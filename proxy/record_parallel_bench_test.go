package proxy_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"

	"github.com/adkproxy/adkproxy/internal/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// benchRecordParallel is benchRecord with 16 clients at once recording into
// one cassette: with the journal, concurrent exchanges share its writes and
// fsyncs (group commit).
func benchRecordParallel(b *testing.B, mode proxy.RecordMode) {
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, RecordMode: mode, Dir: b.TempDir(),
		Upstream: &url.URL{Scheme: "http", Host: "upstream.invalid"}, Transport: fixedUpstream{workload.JSONResponse()}})
	if err != nil {
		b.Fatal(err)
	}
	body := workload.Request()
	want := len(workload.JSONResponse())
	b.SetBytes(int64(len(body) + want))
	b.ReportAllocs()
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := httptest.NewRequest(http.MethodPost, workload.JSONPath, bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(proxy.HeaderInvocation, "bench")
			w := &discardWriter{h: http.Header{}}
			srv.ServeHTTP(w, r)
			if w.status != http.StatusOK || w.n != want {
				b.Errorf("status %d, %d bytes", w.status, w.n)
				return
			}
		}
	})
}

// BenchmarkRecordPassthroughParallelJSON: 16 clients, nothing kept.
func BenchmarkRecordPassthroughParallelJSON(b *testing.B) {
	benchRecordParallel(b, proxy.RecordPassthrough)
}

// BenchmarkRecordParallelJSON: 16 clients keeping every exchange in one
// cassette's journal; the floor is 0.7× the passthrough figure.
func BenchmarkRecordParallelJSON(b *testing.B) { benchRecordParallel(b, proxy.RecordOverwrite) }
