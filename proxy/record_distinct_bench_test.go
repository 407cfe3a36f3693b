package proxy_test

import (
	"runtime"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// benchRecordDistinct sends a different 2 KB first turn with every
// request, untagged, so each call opens a session of its own (a suite of
// independent conversations); parallel sends from 16 clients at once.
func benchRecordDistinct(b *testing.B, mode proxy.Mode, sse, parallel bool) {
	path, answer := workload.JSONPath, workload.JSONResponse()
	if sse {
		path, answer = workload.SSEPath, workload.SSEBody()
	}
	rb := newRecordBench(b, mode, fixedUpstream{body: answer, sse: sse}, path, len(answer))
	rb.turns = make([][]byte, 4096)
	for i := range rb.turns {
		rb.turns[i] = workload.TurnRequest(i)
	}
	b.SetBytes(int64(workload.TurnSize + len(answer)))
	if !parallel {
		for b.Loop() {
			if !rb.send(b) {
				return
			}
		}
		rb.reportSyncs(b)
		return
	}
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() && rb.send(b) {
		}
	})
	rb.reportSyncs(b)
}

// BenchmarkRecordPassthroughDistinctJSON: forwarding distinct first turns,
// keeping nothing (--mode passthrough).
func BenchmarkRecordPassthroughDistinctJSON(b *testing.B) {
	benchRecordDistinct(b, proxy.ModePassthrough, false, false)
}

// BenchmarkRecordPassthroughDistinctSSE: the same with the 20-event
// stream teed event by event.
func BenchmarkRecordPassthroughDistinctSSE(b *testing.B) {
	benchRecordDistinct(b, proxy.ModePassthrough, true, false)
}

// BenchmarkRecordPassthroughDistinctParallelJSON: 16 clients at once.
func BenchmarkRecordPassthroughDistinctParallelJSON(b *testing.B) {
	benchRecordDistinct(b, proxy.ModePassthrough, false, true)
}

// BenchmarkRecordDistinctJSON: distinct first turns kept (--mode
// overwrite, journal and fsync).
func BenchmarkRecordDistinctJSON(b *testing.B) {
	benchRecordDistinct(b, proxy.ModeRecord, false, false)
}
