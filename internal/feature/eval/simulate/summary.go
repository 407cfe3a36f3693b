// eval_summary.json: the run at a glance — counts, means of every
// column, token use and cost of the agent and the simulated user, turn
// latencies, and a line per scenario.

package simulate

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

type summaryDoc struct {
	EvalSetID string             `json:"eval_set_id"`
	Scenarios int                `json:"scenarios"`
	Failed    int                `json:"failed"`
	Diverged  int                `json:"diverged"`
	Means     map[string]float64 `json:"means"`
	Tokens    summaryTokens      `json:"tokens"`
	CostUSD   *float64           `json:"cost_usd"`
	CostNote  string             `json:"cost_note,omitempty"`
	Latency   summaryLatency     `json:"latency"`
	// UserLatency is the simulator's own time per simulated turn (prompt
	// and model call; replayed calls cost only adkproxy's work).
	UserLatency summaryLatency `json:"simulated_user_latency"`
	// ReplayLatency is, in a replay, the agent's answers as this run
	// measured them; latency (and sessions.csv) report the recording's.
	ReplayLatency *summaryLatency   `json:"replay_latency,omitempty"`
	WallSec       float64           `json:"wall_sec"`
	PerScenario   []summaryScenario `json:"per_scenario"`
}

type summaryTokens struct {
	Agent         map[string]scoring.Usage `json:"agent"`
	SimulatedUser map[string]scoring.Usage `json:"simulated_user"`
}

// summaryLatency is a time per user turn, in ms: the agent's answer, or
// the simulated user's.
type summaryLatency struct {
	Turns  int     `json:"turns"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	MaxMS  float64 `json:"max_ms"`
}

type summaryScenario struct {
	EvalID      string              `json:"eval_id"`
	SessionID   string              `json:"session_id"`
	StopStatus  string              `json:"stop_status"`
	Failure     string              `json:"failure,omitempty"`
	Turns       int                 `json:"turns"`
	Divergences []string            `json:"divergences,omitempty"`
	Scores      map[string]*float64 `json:"scores,omitempty"`
	Status      string              `json:"status,omitempty"`
}

func (r *Report) summary() ([]byte, error) {
	doc := summaryDoc{EvalSetID: EvalSetID, Scenarios: len(r.Transcripts), Means: map[string]float64{},
		Tokens:  summaryTokens{Agent: map[string]scoring.Usage{}, SimulatedUser: map[string]scoring.Usage{}},
		WallSec: round(r.Wall.Seconds(), 3), PerScenario: []summaryScenario{}}
	rows := r.rows()
	cols := rows.Columns()
	sums, counts := map[string]float64{}, map[string]int{}
	var turnMS, userMS, replayMS []float64
	replayed := false
	for i, t := range r.Transcripts {
		if t.Failed() {
			doc.Failed++
		}
		if len(t.Divergences) > 0 {
			doc.Diverged++
		}
		for j, v := range rows.Values(i) {
			var f float64
			switch x := v.(type) {
			case *float64:
				if x == nil {
					continue
				}
				f = *x
			case float64:
				f = x
			case int:
				f = float64(x)
			case int64:
				f = float64(x)
			default:
				continue
			}
			sums[cols[j]] += f
			counts[cols[j]]++
		}
		for _, inv := range r.Cases[i].Actual {
			for _, s := range inv.Steps {
				doc.Tokens.Agent[s.Model] = add(doc.Tokens.Agent[s.Model], s.Usage)
			}
		}
		if t.UserModel != "" && t.UserUsage != (scoring.Usage{}) {
			doc.Tokens.SimulatedUser[t.UserModel] = add(doc.Tokens.SimulatedUser[t.UserModel], t.UserUsage)
		}
		replayed = replayed || t.Replayed
		for j, turn := range t.Turns {
			turnMS = append(turnMS, float64(turn.Duration())/float64(time.Millisecond))
			replayMS = append(replayMS, float64(turn.Elapsed)/float64(time.Millisecond))
			if t.Case.Scenario != nil && j > 0 { // turn 1 is the starting prompt
				userMS = append(userMS, float64(turn.UserElapsed)/float64(time.Millisecond))
			}
		}
		s := summaryScenario{EvalID: t.Case.ID, SessionID: t.SessionID, StopStatus: string(t.Status), Failure: t.Failure, Turns: len(t.Turns)}
		for _, d := range t.Divergences {
			s.Divergences = append(s.Divergences, d.String())
		}
		if r.Scores != nil {
			s.Scores = map[string]*float64{}
			for _, m := range r.Scores.Cases[i].Metrics {
				s.Scores[m.Metric] = m.Score
			}
			s.Status = r.Scores.Cases[i].Status.String()
		}
		doc.PerScenario = append(doc.PerScenario, s)
	}
	for k, n := range counts {
		doc.Means[k] = round(sums[k]/float64(n), 6)
	}
	cost, priced := 0.0, true
	for _, byModel := range []map[string]scoring.Usage{doc.Tokens.Agent, doc.Tokens.SimulatedUser} {
		for _, m := range slices.Sorted(maps.Keys(byModel)) {
			c, ok := r.Config.CostOf(m, byModel[m])
			priced = priced && ok
			cost += c
		}
	}
	if priced {
		doc.CostUSD = scoring.Float(round(cost, 6))
	} else {
		doc.CostNote = "a model has no price in the price table (adkproxy.prices in the eval config)"
	}
	doc.Latency = latencyOf(turnMS)
	doc.UserLatency = latencyOf(userMS)
	if replayed {
		l := latencyOf(replayMS)
		doc.ReplayLatency = &l
	}
	return textfmt.IndentedJSON(doc)
}

func add(a, b scoring.Usage) scoring.Usage {
	addUsage(&a, b)
	return a
}

func latencyOf(ms []float64) summaryLatency {
	if len(ms) == 0 {
		return summaryLatency{}
	}
	sort.Float64s(ms)
	sum := 0.0
	for _, v := range ms {
		sum += v
	}
	at := func(q float64) float64 { return round(ms[min(len(ms)-1, int(q*float64(len(ms))))], 3) }
	return summaryLatency{Turns: len(ms), MeanMS: round(sum/float64(len(ms)), 3), P50MS: at(0.5), P95MS: at(0.95), MaxMS: round(ms[len(ms)-1], 3)}
}
