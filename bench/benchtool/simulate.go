// adkproxy simulate: 100 replayed scenarios × 5 turns against the same
// turns from a static eval set (bench/simulate).

package main

// simulateFloor: the simulator layer (rendering the user's prompt and
// replaying its model call) adds at most 10 % to a run's wall time, against
// ADK-JS's API server. Against the in-process server, whose turns cost next
// to nothing, each simulated turn's extra model call is compared with
// nothing: the figure shows the simulator's own cost, and the floor is not
// judged (docs/performance.md).
const simulateFloor = 1.1

// simulateRow is the medians of bench/simulate's pairs of runs.
type simulateRow struct {
	Server                     string
	Scenarios, Turns, Parallel float64
	Simulated, Static, Ratio   float64
	UserTurnP50MS              float64
	// Judged: the run was against ADK-JS, where the floor applies.
	Judged, Met bool
	Pairs       int
}

// simulateFigures reads bench/simulate's measurement lines; ok is false when
// the run had none.
func simulateFigures(r *results) (row simulateRow, ok bool) {
	for _, server := range []string{"adkjs", "fake"} {
		id := "simulate/" + server
		if len(r.measures[id]) == 0 {
			continue
		}
		row = simulateRow{Server: server, Scenarios: r.measure(id, "scenarios"), Turns: r.measure(id, "turns"),
			Parallel: r.measure(id, "parallel"), Simulated: r.measure(id, "simulated_sec"), Static: r.measure(id, "static_sec"),
			UserTurnP50MS: r.measure(id, "user_turn_p50_ms"), Pairs: len(r.measures[id])}
		row.Ratio = row.Simulated / row.Static
		row.Judged = server == "adkjs"
		row.Met = row.Ratio <= simulateFloor
		return row, true
	}
	return simulateRow{}, false
}
