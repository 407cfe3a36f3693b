// Live API replay: BenchmarkLiveReplay's sessions through adkproxy against
// a WebSocket server that plays the same frames (bench/live).

package main

import "fmt"

// liveRow is one concurrency's frames per second.
type liveRow struct {
	C                    int
	Proxy, Direct, Ratio float64
}

// liveFloor: replay reaches at least half the direct server's frame rate,
// at each concurrency.
const liveFloor = 0.5

// liveFigures reads BenchmarkLiveReplay's sub-benchmarks.
func liveFigures(gb []gobench) (floors []ratioFloor, rows []liveRow) {
	fps := map[string]float64{}
	for _, g := range gb {
		fps[g.name] = g.frames
	}
	for _, c := range []int{1, 16} {
		proxy, direct := fps[fmt.Sprintf("BenchmarkLiveReplay/via=proxy/c=%d", c)], fps[fmt.Sprintf("BenchmarkLiveReplay/via=direct/c=%d", c)]
		if proxy == 0 || direct == 0 {
			continue
		}
		rows = append(rows, liveRow{C: c, Proxy: proxy, Direct: direct, Ratio: proxy / direct})
		floors = append(floors, ratioFloor{Payload: "live", C: c, A: proxy, B: direct, Ratio: proxy / direct, Met: proxy/direct >= liveFloor})
	}
	return floors, rows
}
