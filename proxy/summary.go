// Summary: the one screen a run ends with, the same for the CLI and the Go
// test helper (adkproxytest), so both say the same thing about a run.

package proxy

import (
	"fmt"
	"strings"
)

// summaryShown is how many requests needing attention a summary lists.
const summaryShown = 5

// Summary describes a run in a few lines: a line of counts, then the
// requests and recordings that need attention, each with its place and
// diff. Every line ends with a newline.
func Summary(r Report, st Stats) string {
	var b strings.Builder
	c := r.Counts
	if r.Mode == string(ModeRecord) {
		fmt.Fprintf(&b, "adkproxy: recorded %d exchange(s)", c[OutcomeRecorded])
		if n := c[OutcomeMatched]; n > 0 {
			fmt.Fprintf(&b, ", replayed %d", n)
		}
		if n := c[OutcomeForwarded]; n > 0 {
			fmt.Fprintf(&b, ", forwarded %d without recording", n)
		}
	} else {
		fmt.Fprintf(&b, "adkproxy: replayed %d request(s): %d matched, %d mismatched, %d unmatched, %d recording(s) unused",
			c[OutcomeMatched]+c[OutcomeMismatched]+c[OutcomeUnmatched],
			c[OutcomeMatched], c[OutcomeMismatched], c[OutcomeUnmatched], c[OutcomeUnused])
	}
	if st.Failed > 0 {
		fmt.Fprintf(&b, "; %d request(s) refused", st.Failed)
	}
	b.WriteByte('\n')
	n := 0
	for _, o := range r.Outcomes {
		if o.Outcome != OutcomeMismatched && o.Outcome != OutcomeUnmatched && o.Outcome != OutcomeUnused {
			continue
		}
		if n == summaryShown {
			fmt.Fprintf(&b, "  … more in --report FILE\n")
			break
		}
		n++
		label := o.Outcome
		if o.Served {
			label += " (served, lenient)"
		}
		fmt.Fprintf(&b, "  %s %s %s: %s\n", label, o.Method, o.Path, strings.ReplaceAll(o.Message, "\n", "\n    "))
	}
	return b.String()
}
