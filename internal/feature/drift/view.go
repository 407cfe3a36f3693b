// The report's views: text, JSON, markdown and HTML, each the drift's
// changes and then diff's view of the recorded run against the live one.

package drift

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
)

// Formats are the views Write writes, as diff's.
var Formats = []string{"text", "json", "markdown", "html"}

// Write renders the report in format.
func Write(w io.Writer, r *Report, format string) error {
	var b bytes.Buffer
	var err error
	switch format {
	case "json":
		var out []byte
		if out, err = textfmt.IndentedJSON(r); err == nil {
			b.Write(out)
		}
	case "markdown":
		fmt.Fprintf(&b, "## adkproxy drift: %s\n\n%s\n\n", textfmt.MarkdownText(r.Cassettes), textfmt.MarkdownText(SummaryLine(r)))
		if len(r.Changes) > 0 {
			b.WriteString("| severity | kind | what | where | path | recorded | live |\n|---|---|---|---|---|---|---|\n")
			for _, c := range r.Changes {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.Severity, c.Kind, c.What, textfmt.MarkdownCode(where(c), true),
					textfmt.MarkdownCode(c.Path, true), textfmt.MarkdownCode(c.Recorded, true), textfmt.MarkdownCode(c.Live, true))
			}
			b.WriteString("\n")
		}
		err = rundiff.WriteMarkdown(&b, r.Diff)
	case "html":
		lines := []string{SummaryLine(r)}
		for _, c := range r.Changes {
			lines = append(lines, Line(c))
		}
		err = htmlreport.WriteDrift(&b, "adkproxy drift: "+r.Cassettes+" → live", lines, r.Diff)
	default:
		b.WriteString(SummaryLine(r) + "\n")
		for _, c := range r.Changes {
			b.WriteString("  " + Line(c) + "\n")
		}
		b.WriteString("\n")
		err = rundiff.WriteText(&b, r.Diff, false)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// SummaryLine counts what drifted, by kind and severity.
func SummaryLine(r *Report) string {
	s := r.Summary
	if s.Changes == 0 {
		return "drift: none: every step answered as recorded"
	}
	var kinds, sevs []string
	for _, k := range Kinds {
		if n := s.ByKind[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
	}
	for i := len(Severities) - 1; i >= 0; i-- {
		if n := s.BySeverity[Severities[i]]; n > 0 {
			sevs = append(sevs, fmt.Sprintf("%s %d", Severities[i], n))
		}
	}
	return fmt.Sprintf("drift: %s (%s; %s)", textfmt.Plural(s.Changes, "change"), strings.Join(kinds, ", "), strings.Join(sevs, ", "))
}

// Line is one change in one line: severity, kind, what, where, the field
// and both values.
func Line(c Change) string {
	s := fmt.Sprintf("[%s] %s %s at %s", c.Severity, c.Kind, c.What, where(c))
	if c.Path != "" {
		s += ": " + c.Path
	}
	switch {
	case c.Recorded != "" && c.Live != "":
		s += ": recorded " + c.Recorded + ", live " + c.Live
	case c.Recorded != "":
		s += ": recorded " + c.Recorded
	case c.Live != "":
		s += ": live " + c.Live
	}
	return textfmt.OneLine(s)
}

func where(c Change) string {
	s := "cassette " + c.Cassette
	if c.Session > 0 {
		s += fmt.Sprintf(" session %d", c.Session)
	}
	if c.Invocation > 0 {
		s += fmt.Sprintf(" invocation %d", c.Invocation)
	}
	if c.Step >= 0 && c.Invocation > 0 {
		s += fmt.Sprintf(" step %d", c.Step)
	}
	if c.Agent != "" {
		s += " (" + c.Agent + ")"
	}
	return s
}
