// Pairing recorded sessions with expected eval cases (by name, then by
// first user turn) into the cases to evaluate.

package scoring

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// Pair matches recorded sessions (the actual runs) with expectations and
// returns the cases to evaluate, plus one line for everything left unpaired.
//
// Without expectations (exp == nil) every session is a case with Expected
// nil, named like a golden run's cases: the cassette name, or
// "name/<session id>" when the cassette holds several sessions. Metrics
// that compare with expectations are then NOT_EVALUATED with the reason.
//
// With expectations, each expected case takes one session, in this order:
//
//  1. by name: the session of the cassette named like the case's ID when
//     that cassette holds one session, or the session "name/<session id>"
//     names (golden runs name their cases this way);
//  2. otherwise by text: the first session not yet taken (in SessionsOf
//     order: cassette name, then session id) whose first user turn equals
//     the case's first user turn (the conversation_scenario's
//     starting_prompt for scenario cases), compared after trimming spaces.
//
// Name matches are made for all cases before any text match, and a session
// is taken by at most one case. Invocations then pair in order, the i-th
// recorded with the i-th expected (ADK's zip); when the counts differ the
// case is FAILED (Case.Failure says why) and the metrics that compare with
// expectations are NOT_EVALUATED, since newer ADK rejects unequal lengths
// rather than zipping them. Cases come out in the order of exp.Cases.
//
// Nothing is dropped silently: an expected case without a session and a
// session without an expected case each get a line in the second result
// (in expectation order, then session order).
func Pair(sessions []Session, exp *Expected) ([]Case, []string) {
	return PairRuns(sessions, exp, 1)
}

// PairRuns is Pair for an eval set played runs times (adkproxy drive or
// simulate --num-runs): each expected case takes up to runs sessions by
// the same rules — by name every session of the cassette named like the
// case (however many it holds), then by text the next free sessions that
// start with the case's first user turn — and comes out as one Case per
// run (Case.Run from 1, Case.Runs = runs), which Evaluate pools into one
// result. A case that found fewer sessions than runs is FAILED on its
// first run, saying how many were found.
//
// Sessions of sampled cassettes (NAME@1..NAME@K, record --samples K) are
// runs too: each sample's sessions stand for the cassette NAME, and runs
// is multiplied by K, so each case takes its K samples' sessions (times
// runs) in sample order.
func PairRuns(sessions []Session, exp *Expected, runs int) ([]Case, []string) {
	sessions, k := bySample(sessions)
	if k > 0 {
		runs = max(runs, 1) * k
		if exp == nil {
			return pairSamples(sessions), nil
		}
	}
	if runs <= 1 {
		return pairOnce(sessions, exp)
	}
	return pairRuns(sessions, exp, runs)
}

func pairOnce(sessions []Session, exp *Expected) ([]Case, []string) {
	ids := sessionIDs(sessions)
	if exp == nil {
		cases := make([]Case, len(sessions))
		for i := range sessions {
			cases[i] = Case{ID: ids[i], Session: &sessions[i], Actual: sessions[i].Invocations}
		}
		return cases, nil
	}
	x := indexSessions(sessions, true)
	taken := x.taken
	match := make([]int, len(exp.Cases))
	for i, ec := range exp.Cases {
		match[i] = x.take(nameKey(ec.ID))
	}
	for i, ec := range exp.Cases {
		if match[i] >= 0 {
			continue
		}
		if first := firstUserText(ec); first != "" {
			match[i] = x.take(textKey(first))
		}
	}

	var cases []Case
	var unpaired []string
	for i, ec := range exp.Cases {
		j := match[i]
		if j < 0 {
			where := ""
			if ec.File != "" {
				where = " (" + ec.File + ")"
			}
			first := firstUserText(ec)
			why := fmt.Sprintf("no cassette named %q holds a single session", ec.ID)
			if first != "" {
				why += fmt.Sprintf(", and no other session starts with %q", textfmt.Truncate(first, 80))
			}
			unpaired = append(unpaired, fmt.Sprintf("eval case %q%s: no recorded session: %s", ec.ID, where, why))
			continue
		}
		s := &sessions[j]
		c := Case{ID: ec.ID, Session: s, Actual: s.Invocations, Expected: ec.Invocations, EvalSetID: ec.EvalSetID, Scenario: ec.Scenario, Rubrics: ec.Rubrics, SessionInput: ec.SessionInput,
			sessionName: ids[j]}
		c.Failure = c.countFailure()
		cases = append(cases, c)
	}
	for j, s := range sessions {
		if taken[j] {
			continue
		}
		first := ""
		if len(s.Invocations) > 0 {
			first = strings.TrimSpace(s.Invocations[0].UserText)
		}
		unpaired = append(unpaired, fmt.Sprintf("session %s (cassette %q, session %d): no eval case: none has eval_id %q, and none left starts with %q",
			ids[j], s.Cassette, s.ID, ids[j], textfmt.Truncate(first, 80)))
	}
	return cases, unpaired
}

// firstUserText is the text a case's session should start with.
func firstUserText(ec ExpectedCase) string {
	if len(ec.Invocations) > 0 {
		return strings.TrimSpace(ec.Invocations[0].UserText)
	}
	if ec.Scenario != nil {
		var s struct {
			StartingPrompt  string `json:"starting_prompt"`
			StartingPrompt2 string `json:"startingPrompt"`
		}
		if json.Unmarshal(ec.Scenario, &s) == nil {
			if s.StartingPrompt2 != "" {
				return strings.TrimSpace(s.StartingPrompt2)
			}
			return strings.TrimSpace(s.StartingPrompt)
		}
	}
	return ""
}
