package proxy_test

import (
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// BenchmarkRecordPassthroughSSE forwards the 4 KB request and tees the
// 20-event answer event by event, keeping nothing (--mode passthrough).
func BenchmarkRecordPassthroughSSE(b *testing.B) {
	body := workload.SSEBody()
	rb := newRecordBench(b, proxy.ModePassthrough, fixedUpstream{body: body, sse: true}, workload.SSEPath, len(body))
	for b.Loop() {
		if !rb.send(b) {
			return
		}
	}
}
