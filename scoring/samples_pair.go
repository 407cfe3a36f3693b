// Samples of cassettes (record --samples K writes NAME@1..NAME@K): each
// sample's session of a case is one run of that case, scored as repeated
// runs are (runs.go), in sample order.

package scoring

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/samplename"
)

// bySample orders sessions of sampled cassettes by cassette, then sample
// number, then session, and says how many samples the most sampled
// cassette has (0 when no cassette is a sample: sessions come back as
// they were).
func bySample(sessions []Session) ([]Session, int) {
	k := 0
	for _, s := range sessions {
		if _, n := samplename.Split(s.Cassette); n > k {
			k = n
		}
	}
	if k == 0 {
		return sessions, 0
	}
	out := slices.Clone(sessions)
	slices.SortStableFunc(out, func(a, b Session) int {
		ba, na := samplename.Split(a.Cassette)
		bb, nb := samplename.Split(b.Cassette)
		return cmp.Or(cmp.Compare(ba, bb), cmp.Compare(na, nb), cmp.Compare(a.ID, b.ID))
	})
	return out, k
}

// pairSamples is PairRuns without expectations for sampled cassettes: the
// sessions of one cassette's samples with the same session id are the
// runs of one case, named as Pair names a case (the cassette's name, with
// "/<session id>" when a sample holds several sessions).
func pairSamples(sessions []Session) []Case {
	perSample := map[string]int{}
	for _, s := range sessions {
		perSample[s.Cassette]++
	}
	var order []string
	groups := map[string][]int{}
	ids := map[string]string{}
	for j, s := range sessions {
		base := samplename.Base(s.Cassette)
		key := base + "/" + strconv.Itoa(s.ID)
		if _, ok := groups[key]; !ok {
			order = append(order, key)
			ids[key] = base
			if perSample[s.Cassette] > 1 {
				ids[key] = key
			}
		}
		groups[key] = append(groups[key], j)
	}
	var cases []Case
	for _, key := range order {
		for k, j := range groups[key] {
			s := &sessions[j]
			cases = append(cases, Case{ID: ids[key], Session: s, Actual: s.Invocations, Run: k + 1, Runs: len(groups[key])})
		}
	}
	return cases
}
