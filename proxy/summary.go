// Summary: the one screen a run ends with, the same for the CLI and the Go
// test helper (adkproxytest), so both say the same thing about a run.

package proxy

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

// summaryShown is how many requests needing attention a summary lists.
const summaryShown = 5

// SummaryLine is one line of Summary, with what it tells so that a caller
// can mark it (the CLI colours by it) without reading the text back.
type SummaryLine struct {
	// Text is the line without its newline; a listed request's message
	// may continue it on lines indented by four spaces.
	Text string
	// Outcome is, on a line listing a request or recording that needs
	// attention, its outcome (mismatched, unmatched or unused), which Text
	// names after two spaces; it is empty on every other line.
	Outcome matcher.OutcomeKind
	// Caution says the line tells of something answered anyway or
	// refused: a listed mismatch served by lenient replay, or, on the
	// first line (the counts), such a listed line or refused requests.
	Caution bool
}

// Summary describes a run in a few lines: a line of counts, then the
// requests and recordings that need attention, each with its place and
// diff (a mismatch that only follows from an earlier one is folded into
// it, see followOns). Past the first few, one line says how many more
// there are, followed by more (e.g. " in report.json"), which the caller
// words since only it knows where the rest can be read.
func Summary(r Report, st Stats, more string) []SummaryLine {
	lines := []SummaryLine{{Text: countsLine(r, st), Caution: st.Failed > 0}}
	lines = append(lines, rerecordedLines(r)...)
	for _, text := range []string{findingsLine(r.Outcomes), faultLines(r.Faults)} {
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if l != "" {
				lines = append(lines, SummaryLine{Text: l})
			}
		}
	}
	follows := followOns(r.Outcomes)
	caused := make([]int, len(r.Outcomes))    // how many later mismatches each one explains
	left := make([][]string, len(r.Outcomes)) // the recordings never requested after it
	for i, at := range follows {
		switch {
		case at < 0:
		case r.Outcomes[i].Outcome == matcher.OutcomeUnused:
			left[at] = append(left[at], place(r.Outcomes[i]))
		default:
			caused[at]++
		}
	}
	n := 0
	for i, o := range r.Outcomes {
		if o.Outcome != matcher.OutcomeMismatched && o.Outcome != matcher.OutcomeUnmatched && o.Outcome != matcher.OutcomeUnused || follows[i] >= 0 {
			continue
		}
		if n++; n > summaryShown {
			continue
		}
		lines = append(lines, listed(o))
		lines[0].Caution = lines[0].Caution || o.Served
		if caused[i] > 0 {
			lines = append(lines, SummaryLine{Text: fmt.Sprintf("    %d later request(s) differ because of this change", caused[i])})
		}
		if places := left[i]; len(places) > 0 {
			if len(places) > 3 {
				places = append(places[:3:3], fmt.Sprintf("%d more", len(left[i])-3))
			}
			lines = append(lines, SummaryLine{Text: fmt.Sprintf("    after it the agent stopped: %d recording(s) never requested (%s)", len(left[i]), strings.Join(places, "; "))})
		}
	}
	if extra := n - summaryShown; extra > 0 {
		lines = append(lines, SummaryLine{Text: fmt.Sprintf("  … %d more%s", extra, more)})
	}
	return lines
}

// countsLine is a summary's first line: what the run did, in counts.
func countsLine(r Report, st Stats) string {
	var b strings.Builder
	c := r.Counts
	if r.Mode == string(ModeRecord) {
		fmt.Fprintf(&b, "adkproxy: recorded %d exchange(s)", c[matcher.OutcomeRecorded])
		if n := c[matcher.OutcomeMatched]; n > 0 {
			fmt.Fprintf(&b, ", replayed %d", n)
		}
		if n := c[matcher.OutcomeForwarded]; n > 0 {
			fmt.Fprintf(&b, ", forwarded %d without recording", n)
		}
	} else {
		fmt.Fprintf(&b, "adkproxy: replayed %d request(s): %d matched, %d mismatched, %d unmatched, %d recording(s) unused",
			c[matcher.OutcomeMatched]+c[matcher.OutcomeMismatched]+c[matcher.OutcomeUnmatched],
			c[matcher.OutcomeMatched], c[matcher.OutcomeMismatched], c[matcher.OutcomeUnmatched], c[matcher.OutcomeUnused])
	}
	if st.Failed > 0 {
		fmt.Fprintf(&b, "; %d request(s) refused", st.Failed)
	}
	return b.String()
}

// listed is the line of one request or recording needing attention.
func listed(o matcher.Outcome) SummaryLine {
	label := string(o.Outcome)
	if o.Served {
		label += " (served, lenient)"
	}
	return SummaryLine{Outcome: o.Outcome, Caution: o.Served,
		Text: fmt.Sprintf("  %s %s %s: %s", label, o.Method, o.Path, strings.ReplaceAll(o.Message, "\n", "\n    "))}
}

// place names a recording by its session, invocation, step and agent, as
// briefly as the outcome allows.
func place(o matcher.Outcome) string {
	var parts []string
	if o.Session > 0 {
		parts = append(parts, fmt.Sprintf("session %d", o.Session))
	}
	if o.Invocation > 0 {
		parts = append(parts, fmt.Sprintf("invocation %d", o.Invocation))
	}
	if o.Step != nil {
		parts = append(parts, fmt.Sprintf("step %d", *o.Step))
	}
	if o.Agent != "" {
		parts = append(parts, "agent "+o.Agent)
	}
	if len(parts) == 0 {
		return o.Method + " " + o.Path
	}
	return strings.Join(parts, ", ")
}
