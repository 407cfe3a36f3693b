package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/syncstat"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// fixedUpstream answers every request in-process with body (the 2 KB
// JSON, or with sse the 20-event stream, chunked), so a benchmark measures
// the proxy's own work and not a second server.
type fixedUpstream struct {
	body []byte
	sse  bool
}

func (u fixedUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	kind, size := workload.JSONContentType, int64(len(u.body))
	if u.sse {
		kind, size = workload.SSEContentType, -1
	}
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {kind}},
		ContentLength: size, Body: io.NopCloser(bytes.NewReader(u.body)), Request: r}, nil
}

// benchRecord forwards the 4 KB request through the record handler. Every
// request carries the same X-Adkproxy-Invocation, so the organiser files
// them all in one invocation (without the header each identical call opens
// a session of its own; conversation's BenchmarkFileUntaggedCall measures
// filing those).
func benchRecord(b *testing.B, mode proxy.Mode) {
	rb := newRecordBench(b, mode, fixedUpstream{body: workload.JSONResponse()}, workload.JSONPath, len(workload.JSONResponse()))
	for b.Loop() {
		if !rb.send(b) {
			return
		}
	}
	rb.reportSyncs(b)
}

// recordBench sends the 4 KB request through a record handler whose
// upstream is in-process, and checks each answer's status and size.
type recordBench struct {
	srv  *proxy.Server
	path string
	body []byte
	want int

	cassettes int          // > 1: each request names the next of this many cassettes
	turns     [][]byte     // set: each request the next of these first turns, untagged
	sent      atomic.Int64 // requests sent, to turn cassettes round
	syncs0    int64        // journal fsyncs before the benchmark
}

func newRecordBench(b *testing.B, mode proxy.Mode, upstream http.RoundTripper, path string, want int) *recordBench {
	srv, err := proxy.New(proxy.Config{Mode: mode, Dir: b.TempDir(),
		Upstream: &url.URL{Scheme: "http", Host: "upstream.invalid"}, Transport: upstream})
	if err != nil {
		b.Fatal(err)
	}
	body := workload.Request()
	b.SetBytes(int64(len(body) + want))
	b.ReportAllocs()
	return &recordBench{srv: srv, path: path, body: body, want: want, syncs0: syncstat.JournalSyncs()}
}

// reportSyncs reports the journal fsyncs per exchange the run made: 1 is
// a sync for every exchange, lower is group commit at work.
func (rb *recordBench) reportSyncs(b *testing.B) {
	if n := rb.sent.Load(); n > 0 {
		b.ReportMetric(float64(syncstat.JournalSyncs()-rb.syncs0)/float64(n), "fsyncs/exchange")
	}
}

// send makes one request; it reports a wrong answer with b.Error, safe
// from RunParallel's goroutines, and returns whether the answer was right.
func (rb *recordBench) send(b *testing.B) bool {
	n := rb.sent.Add(1)
	body := rb.body
	if rb.turns != nil {
		body = rb.turns[int(n)%len(rb.turns)]
	}
	r := httptest.NewRequest(http.MethodPost, rb.path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if rb.turns == nil {
		r.Header.Set(proxy.HeaderInvocation, "bench")
	}
	if rb.cassettes > 1 {
		r.Header.Set(proxy.HeaderCassette, "c"+strconv.Itoa(int(n)%rb.cassettes))
	}
	w := &discardWriter{h: http.Header{}}
	rb.srv.ServeHTTP(w, r)
	if w.status != http.StatusOK || w.n != rb.want {
		b.Errorf("status %d, %d bytes", w.status, w.n)
		return false
	}
	return true
}

// BenchmarkRecordPassthroughJSON is the record handler without keeping
// anything (--mode passthrough): forward, tee, place the call.
func BenchmarkRecordPassthroughJSON(b *testing.B) { benchRecord(b, proxy.ModePassthrough) }

// BenchmarkRecordJSON adds keeping the exchange (--mode overwrite): the
// journal record, fsynced before the answer is released.
func BenchmarkRecordJSON(b *testing.B) { benchRecord(b, proxy.ModeRecord) }
