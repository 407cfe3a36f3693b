package proxy_test

import (
	"runtime"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// benchRecordParallel is benchRecord with 16 clients at once recording into
// one cassette, or with cassettes > 1 each request into the next of that
// many: with the journal, concurrent exchanges share writes and fsyncs
// (group commit), which the fsyncs/exchange metric shows.
func benchRecordParallel(b *testing.B, mode proxy.Mode, cassettes int) {
	rb := newRecordBench(b, mode, fixedUpstream{body: workload.JSONResponse()}, workload.JSONPath, len(workload.JSONResponse()))
	rb.cassettes = cassettes
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() && rb.send(b) {
		}
	})
	rb.reportSyncs(b)
}

// BenchmarkRecordPassthroughParallelJSON: 16 clients, nothing kept.
func BenchmarkRecordPassthroughParallelJSON(b *testing.B) {
	benchRecordParallel(b, proxy.ModePassthrough, 1)
}

// BenchmarkRecordParallelJSON: 16 clients keeping every exchange in one
// cassette's journal; the floor is 0.7× the passthrough figure.
func BenchmarkRecordParallelJSON(b *testing.B) { benchRecordParallel(b, proxy.ModeRecord, 1) }

// BenchmarkRecordParallel16CassettesJSON: 16 clients, each request kept in
// the next of 16 cassettes in turn (tests sharing one proxy), so group
// commit must gather across journals.
func BenchmarkRecordParallel16CassettesJSON(b *testing.B) {
	benchRecordParallel(b, proxy.ModeRecord, 16)
}
