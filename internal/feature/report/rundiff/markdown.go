// The markdown view: compact, for a pull request comment or a job summary.

package rundiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteMarkdown writes the report as GitHub-flavoured markdown: the
// summary and cost on top, then one collapsible <details> block per
// invocation that changed, its changes in a diff code block. Same
// invocations are only counted.
func WriteMarkdown(w io.Writer, r *Report) error {
	s := r.Summary
	fmt.Fprintf(w, "## adkproxy diff\n\n`%s` → `%s`\n\n**%s**\n\n", mdCode(r.Old), mdCode(r.New), strings.TrimPrefix(SummaryLine(r), "diff: "))
	fmt.Fprintf(w, "| cost | old | new | change |\n|---|---:|---:|---:|\n")
	for _, row := range s.Cost.Rows() {
		fmt.Fprintf(w, "| %s | %d | %d | %+d (%s) |\n", row.Name, row.Old, row.New, row.New-row.Old, percent(row.Old, row.New))
	}
	o, n := s.Cost.Old, s.Cost.New
	fmt.Fprintf(w, "| latency | %.1f ms | %.1f ms | %+.1f ms |\n", o.LatencyMs, n.LatencyMs, n.LatencyMs-o.LatencyMs)
	for _, c := range r.Cassettes {
		if c.Status == Same {
			continue
		}
		fmt.Fprintf(w, "\n### cassette `%s`: %s\n", mdCode(c.Name), c.Status)
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "\n- %s\n", mdText(Describe(ch)))
		}
		for _, sd := range c.Sessions {
			if sd.Status == Same {
				continue
			}
			fmt.Fprintf(w, "\n**session %s** %s: %s\n", IDs(sd.OldID, sd.NewID), mdText(quote(sd.User)), sd.Status)
			for _, ch := range sd.Changes {
				fmt.Fprintf(w, "\n- %s\n", mdText(Describe(ch)))
			}
			if sd.Status != Changed {
				continue
			}
			for _, d := range sd.Invocations {
				if d.Status != Same {
					writeMarkdownInvocation(w, &d)
				}
			}
		}
	}
	return nil
}

func writeMarkdownInvocation(w io.Writer, d *InvocationDiff) {
	counts := CountChanges(countOf(d.Changes))
	if d.NewUser != "" {
		counts = strings.TrimPrefix(counts+", user text changed", ", ")
	}
	// <summary> holds HTML, where markdown's escapes would show.
	fmt.Fprintf(w, "\n<details><summary>invocation %s %s: %s</summary>\n\n", IDs(d.OldID, d.NewID),
		htmlText.Replace(quote(d.User)), htmlText.Replace(counts))
	fmt.Fprintf(w, "```diff\n")
	if d.NewUser != "" {
		fmt.Fprintf(w, "- user: %s\n+ user: %s\n", fence(d.User), fence(d.NewUser))
	}
	if len(d.Tools) > 0 && d.Status == Changed {
		fmt.Fprintf(w, "# tool calls\n")
		for _, ts := range d.Tools {
			mark := map[string]string{Added: "+", Removed: "-", Moved: "!", string(ArgsChanged): "!"}[ts.Status]
			if mark == "" {
				mark = " "
			}
			line := mark + " " + fence(ts.Agent+": "+textfmt.Call(ts.Name, ts.Args, callValueWidth))
			if ts.Status == Moved {
				line += fmt.Sprintf("   (moved from %s to %s)", position(ts.OldIndex), position(ts.NewIndex))
			}
			fmt.Fprintln(w, line)
			for _, ch := range ts.ArgChanges {
				ch.Tool = ""
				fmt.Fprintf(w, "!     %s\n", fence(Describe(ch)))
			}
		}
	}
	section := ""
	for _, ch := range d.Changes {
		switch ch.Kind {
		case ToolAdded, ToolRemoved, ToolMoved, ArgsChanged:
			continue
		case InvocationAdded, InvocationRemoved:
			fmt.Fprintf(w, "%s %s\n", map[Kind]string{InvocationAdded: "+", InvocationRemoved: "-"}[ch.Kind], fence(Describe(ch)))
			continue
		}
		if h := sectionOf(ch.Kind) + " " + ch.Agent; h != section && ch.Kind != ResponseChanged {
			fmt.Fprintf(w, "# %s\n", fence(strings.TrimSpace(h)))
			section = h
		}
		switch ch.Kind {
		case ResponseChanged, InstructionChange:
			name := "final response"
			if ch.Kind == InstructionChange {
				name = "system instruction"
			} else if d.Similarity != nil {
				name += fmt.Sprintf(" (ROUGE-1 F %.2f)", *d.Similarity)
			}
			fmt.Fprintf(w, "# %s\n- %s\n+ %s\n", name, fence(ch.Old), fence(ch.New))
		default:
			fmt.Fprintf(w, "! %s\n", fence(Describe(ch)))
		}
	}
	fmt.Fprintf(w, "```\n\n%s\n\n</details>\n", mdText("cost: "+CostText(d.Cost)))
}

// fence keeps text on one line inside a code block, with no run of
// backticks that could close it.
func fence(s string) string {
	return strings.ReplaceAll(textfmt.OneLine(s), "```", "`\u200b``")
}

// mdText escapes what markdown or HTML would read as markup, on one line.
func mdText(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "<", "&lt;", ">", "&gt;", "|", "\\|", "[", "\\[", "]", "\\]", "#", "\\#")
	return r.Replace(textfmt.OneLine(s))
}

// htmlText escapes what HTML reads as markup (quotes need none outside
// attributes).
var htmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// mdCode is text for inside a `code span`.
func mdCode(s string) string { return strings.ReplaceAll(textfmt.OneLine(s), "`", "'") }
