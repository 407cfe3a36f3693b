package proxy_test

import (
	"bytes"
	"io"
	"net/http"
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
	body := workload.SSEBody()
	rb := newRecordBench(b, proxy.RecordPassthrough, sseUpstream{body}, workload.SSEPath, len(body))
	for b.Loop() {
		if !rb.send(b) {
			return
		}
	}
}
