// The markdown output format: a scoring run as GitHub-flavoured Markdown
// for pull request comments and job summaries.

package scoring

import (
	"bufio"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteMarkdown writes r as GitHub-flavoured Markdown for a pull request
// comment or a job summary ($GITHUB_STEP_SUMMARY): a heading with the
// verdict and the summary line, then per case a table of its metrics and,
// below it, why each metric that did not pass failed; last the eval cases
// and sessions that could not be paired.
func WriteMarkdown(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	title := "adkproxy score"
	if r.EvalSetID != "" {
		title += ": " + mdEscape(r.EvalSetID)
	}
	if r.Label != "" {
		title += " (" + mdEscape(r.Label) + ")"
	}
	bw.WriteString("## " + mdIcon(ResultStatus(r)) + " " + title + "\n\n")
	bw.WriteString(mdEscape(Summary(r)) + "\n")
	if s := suiteSamplesOf(r); s != nil {
		for _, l := range s.Lines() {
			bw.WriteString("\n" + mdEscape(l) + "\n")
		}
	}
	for _, c := range r.Cases {
		bw.WriteString("\n### " + mdIcon(c.Status) + " " + mdEscape(outCaseID(c)) + " — " + outKnown(c.Status).String() + "\n\n")
		var about []string
		if s := outSessionID(c); s != "" {
			about = append(about, "session "+mdCode(s, false))
		}
		if c.Case != nil {
			about = append(about, textfmt.Plural(len(c.Case.Actual), "invocation"))
		}
		if len(about) > 0 {
			bw.WriteString(strings.Join(about, ", ") + "\n\n")
		}
		if c.Samples.N > 0 {
			bw.WriteString(mdEscape(c.Samples.Text()) + "\n\n")
		}
		if f := outCaseFailure(c); f != "" {
			bw.WriteString("**Case failed:** " + mdEscape(f) + "\n\n")
		}
		if len(c.Metrics) == 0 {
			bw.WriteString("No metric was evaluated.\n")
			continue
		}
		bw.WriteString("| Metric | Score | Threshold | Status |\n|---|--:|--:|---|\n")
		var why []string
		for _, m := range c.Metrics {
			icon := mdIcon(m.Status)
			if m.Informational {
				icon = "ℹ️"
			}
			bw.WriteString("| " + mdCode(m.Metric, true) + " | " + outScore(m) + " | " + mdEscape(outThreshold(m)) + " | " +
				icon + " " + outStatus(m) + " |\n")
			for _, reason := range outReasons(m) {
				why = append(why, "- "+mdCode(m.Metric, false)+": "+mdEscape(reason))
			}
			for _, note := range outNotes(m) {
				why = append(why, "- "+mdCode(m.Metric, false)+": "+mdEscape(note))
			}
			if t := outScoreSamplesText(m); t != "" {
				why = append(why, "- "+mdCode(m.Metric, false)+": "+mdEscape(t))
			}
		}
		if len(why) > 0 {
			bw.WriteString("\n" + strings.Join(why, "\n") + "\n")
		}
	}
	if len(r.Unpaired) > 0 {
		bw.WriteString("\n**Not scored (unpaired):**\n\n")
		for _, u := range r.Unpaired {
			bw.WriteString("- " + mdEscape(u) + "\n")
		}
	}
	return bw.Flush()
}

func mdIcon(s EvalStatus) string {
	switch s {
	case Passed:
		return "✅"
	case Failed:
		return "❌"
	}
	return "⚠️"
}

// mdEscape and mdCode are textfmt's Markdown helpers, under short names.
func mdEscape(s string) string { return textfmt.MarkdownText(s) }

func mdCode(s string, inTable bool) string { return textfmt.MarkdownCode(s, inTable) }
