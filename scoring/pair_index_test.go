package scoring

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// Pairing through the index gives exactly what the quadratic scans it
// replaced gave (kept below as the reference), on inputs full of ties:
// duplicate first turns, cassettes named like another's "name/<id>",
// cassettes of one and of several sessions, cases named like both, empty
// turns, spaces to trim, scenario cases, and more cases than sessions.
func TestIndexedPairingIsTheQuadraticOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 9))
	texts := []string{"hi", " hi ", "weather?", "", "Paris", "x/1"}
	names := []string{"a", "b", "a/1", "a/2", "c", "b/0", "x"}
	for trial := range 3000 {
		var sessions []Session
		for range rng.IntN(12) {
			s := Session{Cassette: names[rng.IntN(len(names))], ID: rng.IntN(3)}
			if rng.IntN(5) > 0 {
				s.Invocations = []Invocation{{UserText: texts[rng.IntN(len(texts))]}}
			}
			sessions = append(sessions, s)
		}
		exp := &Expected{}
		for range rng.IntN(12) {
			ec := ExpectedCase{ID: names[rng.IntN(len(names))]}
			switch rng.IntN(4) {
			case 0:
				ec.Scenario = json.RawMessage(`{"starting_prompt": "` + texts[rng.IntN(len(texts))] + `"}`)
			case 1:
			default:
				ec.Invocations = []Invocation{{UserText: texts[rng.IntN(len(texts))]}}
			}
			exp.Cases = append(exp.Cases, ec)
		}
		for _, runs := range []int{1, 2, 3} {
			gotCases, gotUnpaired := PairRuns(sessions, exp, runs)
			var wantCases []Case
			var wantUnpaired []string
			if runs == 1 {
				wantCases, wantUnpaired = quadraticPairOnce(sessions, exp)
			} else {
				wantCases, wantUnpaired = quadraticPairRuns(sessions, exp, runs)
			}
			if !reflect.DeepEqual(gotCases, wantCases) || !reflect.DeepEqual(gotUnpaired, wantUnpaired) {
				t.Fatalf("trial %d, %d runs: sessions %+v, cases %+v:\ngot  %s\nwant %s", trial, runs, sessions, exp.Cases,
					pairingOf(gotCases, gotUnpaired), pairingOf(wantCases, wantUnpaired))
			}
		}
	}
}

func pairingOf(cases []Case, unpaired []string) string {
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "%s<-%s/%d run %d; ", c.ID, c.Session.Cassette, c.Session.ID, c.Run)
	}
	return b.String() + strings.Join(unpaired, " | ")
}

// The pairing before the index: each case scans every session.

func quadraticPairOnce(sessions []Session, exp *Expected) ([]Case, []string) {
	ids := sessionIDs(sessions)
	if exp == nil {
		cases := make([]Case, len(sessions))
		for i := range sessions {
			cases[i] = Case{ID: ids[i], Session: &sessions[i], Actual: sessions[i].Invocations}
		}
		return cases, nil
	}
	perCassette := map[string]int{}
	for _, s := range sessions {
		perCassette[s.Cassette]++
	}
	taken := make([]bool, len(sessions))
	match := make([]int, len(exp.Cases))
	for i := range match {
		match[i] = -1
	}
	for i, ec := range exp.Cases {
		for j, s := range sessions {
			if taken[j] {
				continue
			}
			if (perCassette[s.Cassette] == 1 && s.Cassette == ec.ID) || s.Cassette+"/"+strconv.Itoa(s.ID) == ec.ID {
				match[i], taken[j] = j, true
				break
			}
		}
	}
	for i, ec := range exp.Cases {
		if match[i] >= 0 {
			continue
		}
		first := firstUserText(ec)
		if first == "" {
			continue
		}
		for j, s := range sessions {
			if !taken[j] && len(s.Invocations) > 0 && strings.TrimSpace(s.Invocations[0].UserText) == first {
				match[i], taken[j] = j, true
				break
			}
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
		c := Case{ID: ec.ID, Session: s, Actual: s.Invocations, Expected: ec.Invocations, EvalSetID: ec.EvalSetID, Scenario: ec.Scenario, Rubrics: ec.Rubrics, SessionInput: ec.SessionInput, sessionName: ids[j]}
		if ec.Scenario == nil && len(ec.Invocations) != len(s.Invocations) {
			c.Failure = fmt.Sprintf("the eval case has %s, the recorded session %s (cassette %q, session %d) has %d: invocations pair in order, so the counts must be equal",
				textfmt.Plural(len(ec.Invocations), "invocation"), ids[j], s.Cassette, s.ID, len(s.Invocations))
		}
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

func quadraticPairRuns(sessions []Session, exp *Expected, runs int) ([]Case, []string) {
	if exp == nil {
		return quadraticPairOnce(sessions, nil)
	}
	ids := sessionIDs(sessions)
	taken := make([]bool, len(sessions))
	matched := make([][]int, len(exp.Cases))
	for i, ec := range exp.Cases {
		for j, s := range sessions {
			if len(matched[i]) == runs {
				break
			}
			if !taken[j] && (s.Cassette == ec.ID || s.Cassette+"/"+strconv.Itoa(s.ID) == ec.ID) {
				matched[i], taken[j] = append(matched[i], j), true
			}
		}
	}
	for i, ec := range exp.Cases {
		first := firstUserText(ec)
		if first == "" {
			continue
		}
		for j, s := range sessions {
			if len(matched[i]) == runs {
				break
			}
			if !taken[j] && len(s.Invocations) > 0 && strings.TrimSpace(s.Invocations[0].UserText) == first {
				matched[i], taken[j] = append(matched[i], j), true
			}
		}
	}
	var cases []Case
	var unpaired []string
	for i, ec := range exp.Cases {
		if len(matched[i]) == 0 {
			unpaired = append(unpaired, fmt.Sprintf("eval case %q: no recorded session for any of its %d runs: no cassette is named %q and no session starts with %q",
				ec.ID, runs, ec.ID, textfmt.Truncate(firstUserText(ec), 80)))
			continue
		}
		for k, j := range matched[i] {
			s := &sessions[j]
			c := Case{ID: ec.ID, Session: s, Actual: s.Invocations, Expected: ec.Invocations, EvalSetID: ec.EvalSetID,
				Scenario: ec.Scenario, Rubrics: ec.Rubrics, SessionInput: ec.SessionInput, Run: k + 1, Runs: runs, sessionName: ids[j]}
			if ec.Scenario == nil && len(ec.Invocations) != len(s.Invocations) {
				c.Failure = fmt.Sprintf("the eval case has %s, the recorded session %s (cassette %q, session %d) has %d: invocations pair in order, so the counts must be equal",
					textfmt.Plural(len(ec.Invocations), "invocation"), ids[j], s.Cassette, s.ID, len(s.Invocations))
			}
			if k == 0 && len(matched[i]) < runs {
				missing := fmt.Sprintf("%d of %d runs have no recorded session", runs-len(matched[i]), runs)
				c.Failure = strings.TrimPrefix(c.Failure+"; "+missing, "; ")
			}
			cases = append(cases, c)
		}
	}
	for j, s := range sessions {
		if !taken[j] {
			unpaired = append(unpaired, fmt.Sprintf("session %s (cassette %q, session %d): no eval case left for it (every case has its %d runs)", ids[j], s.Cassette, s.ID, runs))
		}
	}
	return cases, unpaired
}
