package proxy_test

import (
	"runtime"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// benchRecordParallel is benchRecord with 16 clients at once recording into
// one cassette: with the journal, concurrent exchanges share its writes and
// fsyncs (group commit).
func benchRecordParallel(b *testing.B, mode proxy.Mode) {
	rb := newRecordBench(b, mode, fixedUpstream{body: workload.JSONResponse()}, workload.JSONPath, len(workload.JSONResponse()))
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() && rb.send(b) {
		}
	})
}

// BenchmarkRecordPassthroughParallelJSON: 16 clients, nothing kept.
func BenchmarkRecordPassthroughParallelJSON(b *testing.B) {
	benchRecordParallel(b, proxy.ModePassthrough)
}

// BenchmarkRecordParallelJSON: 16 clients keeping every exchange in one
// cassette's journal; the floor is 0.7× the passthrough figure.
func BenchmarkRecordParallelJSON(b *testing.B) { benchRecordParallel(b, proxy.ModeRecord) }
