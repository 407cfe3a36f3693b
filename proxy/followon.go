// Follow-on mismatches: one change (a tool added, a turn inserted) makes
// every later request differ in the same way; they are summarised as
// caused by the first instead of listed one by one.

package proxy

import (
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

// followOns returns, for each outcome, the index of the earlier failure it
// follows from, or -1: a mismatch whose change it only repeats (exactly
// the same differences), or, for a recording never requested, the last
// failed request of its cassette that was refused (the agent got an error
// and stopped; lenient replay serves and the agent goes on, so a served
// mismatch explains nothing). The later one then needs no attention of its
// own.
func followOns(outcomes []matcher.Outcome) []int {
	follows := make([]int, len(outcomes))
	first := map[string]int{}      // differences → the first mismatch with them
	lastFailed := map[string]int{} // cassette → its last refused request
	for i, o := range outcomes {
		follows[i] = -1
		if o.Outcome == matcher.OutcomeUnused {
			if at, ok := lastFailed[o.Cassette]; ok {
				follows[i] = at
			}
			continue
		}
		if (o.Outcome == matcher.OutcomeMismatched || o.Outcome == matcher.OutcomeUnmatched) && !o.Served {
			lastFailed[o.Cassette] = i
		}
		if o.Outcome != matcher.OutcomeMismatched || len(o.Diffs) == 0 {
			continue
		}
		lines := make([]string, len(o.Diffs))
		for k, d := range o.Diffs {
			lines[k] = d.String()
		}
		slices.Sort(lines)
		key := strings.Join(lines, "\n")
		if at, seen := first[key]; seen {
			follows[i] = at
			if !o.Served {
				lastFailed[o.Cassette] = at // what follows it follows the first
			}
		} else {
			first[key] = i
		}
	}
	return follows
}
