// The gate's report for people, one line per case and one for the suite.

package gate

import (
	"fmt"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteText writes r: a line per case gated, the suite, the cases only one
// side has, the flaky ones, and the verdict last.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "GATE against the baseline (95%% interval of the pass-rate difference, candidate − baseline; margin %s)\n", num(r.Margin))
	for _, c := range r.Cases {
		b.WriteString("  " + line(textfmt.OneLine(key{c.EvalSetID, c.EvalID}.String()), c) + "\n")
	}
	b.WriteString("  " + line("SUITE", r.Suite) + "\n")
	if len(r.OnlyCandidate) > 0 {
		b.WriteString("  not gated, no baseline: " + textfmt.OneLine(strings.Join(r.OnlyCandidate, ", ")) + "\n")
	}
	if len(r.OnlyBaseline) > 0 {
		b.WriteString("  not gated, missing from this run: " + textfmt.OneLine(strings.Join(r.OnlyBaseline, ", ")) + "\n")
	}
	if len(r.Flaky) > 0 {
		b.WriteString("  FLAKY (passed and failed within their samples): " + textfmt.OneLine(strings.Join(r.Flaky, ", ")) + "\n")
	}
	fmt.Fprintf(&b, "GATE %s: %s\n", r.Verdict(), why(r))
	_, err := io.WriteString(w, b.String())
	return err
}

func line(name string, c Row) string {
	return fmt.Sprintf("%-12s %s  %d/%d → %d/%d  difference %s, interval [%.4f, %.4f]",
		c.Verdict, name, c.Baseline.Passes, c.Baseline.N, c.Candidate.Passes, c.Candidate.N, num(c.Diff), c.Low, c.High)
}

func why(r *Report) string {
	bound := "-" + num(r.Margin)
	switch r.Verdict() {
	case "FAIL":
		return "a pass rate is lower than the baseline's beyond the margin: its whole interval lies below " + bound
	case "PASS":
		return "the suite's interval lies above " + bound + ": not worse than the baseline beyond the margin"
	}
	return "the suite's interval holds " + bound + ": the samples cannot tell; record more samples (record --samples K) or state a --margin"
}

func num(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", f), "0"), ".")
}
