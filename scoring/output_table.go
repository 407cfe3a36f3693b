// The table output format: a scoring run as text for people.

package scoring

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteTable writes r for people: one block per case with a row per
// metric (score, threshold — "≤ X" for a maximum — and status), the reasons
// of each metric that did not pass indented below it, the pairs that could
// not be made, and a summary line last. An informational metric (no
// threshold) shows "-" as its threshold and INFO as its status.
//
//	EVAL SET weather
//	CASE default  PASSED  (session default/1, 2 invocations)
//	  METRIC                     SCORE  THRESHOLD  STATUS
//	  tool_trajectory_avg_score  1      1          PASSED
//	  response_match_score       0.5    0.8        FAILED
//	      invocation 2: expected get_weather(city="London"), got get_weather(city="Paris")
//
//	FAILED: 0 of 1 case passed (1 FAILED); 1 of 2 criteria passed (1 FAILED)
func WriteTable(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	if r.EvalSetID != "" {
		bw.WriteString("EVAL SET " + textfmt.OneLine(r.EvalSetID) + "\n")
	}
	if r.Label != "" {
		bw.WriteString("LABEL " + textfmt.OneLine(r.Label) + "\n")
	}
	// One set of column widths for every metric row, so all cases line up.
	header := []string{"METRIC", "SCORE", "THRESHOLD", "STATUS"}
	widths := make([]int, len(header))
	grow := func(cells []string) {
		for i, c := range cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	grow(header)
	rows := make([][][]string, len(r.Cases))
	for i, c := range r.Cases {
		for _, m := range c.Metrics {
			cells := []string{textfmt.OneLine(m.Metric), outScore(m), outThreshold(m), outStatus(m)}
			grow(cells)
			rows[i] = append(rows[i], cells)
		}
	}
	row := func(cells []string) {
		line := "  "
		for i, c := range cells {
			if i == len(cells)-1 {
				line += c
				break
			}
			line += c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2)
		}
		bw.WriteString(line + "\n")
	}
	for i, c := range r.Cases {
		if i > 0 {
			bw.WriteString("\n")
		}
		line := "CASE " + textfmt.OneLine(outCaseID(c)) + "  " + outKnown(c.Status).String()
		var about []string
		if s := outSessionID(c); s != "" {
			about = append(about, "session "+textfmt.OneLine(s))
		}
		if c.Case != nil {
			about = append(about, textfmt.Plural(len(c.Case.Actual), "invocation"))
			if c.Case.Runs > 1 {
				about = append(about, fmt.Sprintf("%d runs pooled", len(c.Case.RunSessions)))
			}
		}
		if len(about) > 0 {
			line += "  (" + strings.Join(about, ", ") + ")"
		}
		bw.WriteString(line + "\n")
		if c.Samples.N > 0 {
			bw.WriteString("  " + c.Samples.Text() + "\n")
		}
		if f := outCaseFailure(c); f != "" {
			outIndented(bw, "  case failed: ", "    ", f)
		}
		if len(c.Metrics) == 0 {
			bw.WriteString("  no metric was evaluated\n")
			continue
		}
		row(header)
		for j, m := range c.Metrics {
			row(rows[i][j])
			for _, reason := range outReasons(m) {
				outIndented(bw, "      ", "        ", reason)
			}
			for _, note := range outNotes(m) {
				outIndented(bw, "      ", "        ", note)
			}
			if t := outScoreSamplesText(m); t != "" {
				bw.WriteString("      " + t + "\n")
			}
		}
	}
	if len(r.Unpaired) > 0 {
		if len(r.Cases) > 0 {
			bw.WriteString("\n")
		}
		bw.WriteString("UNPAIRED (not scored):\n")
		for _, u := range r.Unpaired {
			outIndented(bw, "  ", "    ", u)
		}
	}
	if len(r.Cases) > 0 || len(r.Unpaired) > 0 {
		bw.WriteString("\n")
	}
	if s := suiteSamplesOf(r); s != nil {
		for _, l := range s.Lines() {
			bw.WriteString(textfmt.OneLine(l) + "\n")
		}
	}
	bw.WriteString(Summary(r) + "\n")
	return bw.Flush()
}

// outIndented writes text after first, its further lines after more, each
// line made printable.
func outIndented(w *bufio.Writer, first, more, text string) {
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		prefix := more
		if i == 0 {
			prefix = first
		}
		w.WriteString(prefix + textfmt.OneLine(l) + "\n")
	}
}
