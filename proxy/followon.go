// Follow-on mismatches: one change (a tool added, a turn inserted) makes
// every later request differ in the same way; they are summarised as
// caused by the first instead of listed one by one.

package proxy

import (
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

// followOns returns, for each outcome, the index of the earlier mismatch
// whose change it only repeats (exactly the same differences), or -1.
// The later one is then caused by the same change and needs no attention
// of its own.
func followOns(outcomes []matcher.Outcome) []int {
	follows := make([]int, len(outcomes))
	first := map[string]int{} // differences → the first mismatch with them
	for i, o := range outcomes {
		follows[i] = -1
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
		} else {
			first[key] = i
		}
	}
	return follows
}
