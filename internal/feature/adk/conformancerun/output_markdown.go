// The markdown output format: a run as GitHub-flavoured Markdown for pull
// request comments and job summaries.

package conformancerun

import (
	"bufio"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteMarkdown writes r as a heading with the summary, a table of the
// cases (status, case, agent, reason), and per case with findings a list
// of them by group.
func WriteMarkdown(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	icon := "✅"
	if r.Failed() {
		icon = "❌"
	}
	bw.WriteString("## " + icon + " adkproxy conformance\n\n")
	bw.WriteString(textfmt.MarkdownText(Summary(r)) + "; server " + textfmt.MarkdownCode(r.ServerCmd, false) +
		", profile " + textfmt.MarkdownCode(r.Profile, false))
	for i, f := range r.IgnoredEventFields {
		if i == 0 {
			bw.WriteString(", event fields left out of the comparison:")
		}
		bw.WriteString(" " + textfmt.MarkdownCode(f, false))
	}
	bw.WriteString("\n\n")
	bw.WriteString("| Status | Case | Agent | Reason |\n|---|---|---|---|\n")
	for _, c := range r.Cases {
		bw.WriteString("| " + mdStatus(c.Status) + " | " + textfmt.MarkdownCode(c.Name, true) + " | " +
			textfmt.MarkdownCode(c.Agent, true) + " | " + textfmt.MarkdownText(c.Reason) + " |\n")
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		lines := findingLines(c)
		if len(lines) == 0 && len(c.Notes) == 0 {
			continue
		}
		bw.WriteString("\n### " + textfmt.MarkdownText(c.Name) + "\n\n")
		for _, l := range lines {
			bw.WriteString(strings.Repeat("  ", l.depth) + "- " + textfmt.MarkdownText(l.text) + "\n")
		}
		for _, n := range c.Notes {
			bw.WriteString("- note: " + textfmt.MarkdownText(n) + "\n")
		}
	}
	return bw.Flush()
}

func mdStatus(s Status) string {
	switch s {
	case Pass:
		return "✅ PASS"
	case Fail:
		return "❌ FAIL"
	}
	return "⏭️ SKIP"
}
