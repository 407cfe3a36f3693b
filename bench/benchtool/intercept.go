// Replay through the forward proxy: BenchmarkInterceptedReplay's calls
// (CONNECT, TLS with a leaf from the local CA, keep-alive) against the
// same bytes from a static TLS server.

package main

import "fmt"

// interceptRow is one kind of intercepted call at one concurrency.
type interceptRow struct {
	Call         string // tool or gemini
	C            int
	US, DirectUS float64 // µs per call, wall time (the inverse of throughput)
	ThroughputX  float64 // throughput as a multiple of the direct server's
}

// interceptFloor is the floor: a replayed tool call at c=16 reaches at
// least half the direct server's throughput.
const interceptFloor = 0.5

// interceptFigures reads BenchmarkInterceptedReplay's sub-benchmarks; ok
// is false when the run has none.
func interceptFigures(gb []gobench) (floor ratioFloor, rows []interceptRow, ok bool) {
	ns := map[string]float64{}
	for _, g := range gb {
		ns[g.name] = g.ns
	}
	name := func(via string, c int) string { return fmt.Sprintf("BenchmarkInterceptedReplay/via=%s/c=%d", via, c) }
	for _, c := range []int{1, 16} {
		direct, found := ns[name("direct", c)]
		if !found {
			continue
		}
		for _, call := range []string{"tool", "gemini"} {
			x, found := ns[name("proxy/call="+call, c)]
			if !found {
				continue
			}
			rows = append(rows, interceptRow{Call: call, C: c, US: x / 1e3, DirectUS: direct / 1e3, ThroughputX: direct / x})
			if call == "tool" && c == 16 {
				floor = ratioFloor{Payload: "tool", C: 16, A: 1e9 / x, B: 1e9 / direct, Ratio: direct / x}
				floor.Met, ok = floor.Ratio >= interceptFloor, true
			}
		}
	}
	return floor, rows, ok
}
