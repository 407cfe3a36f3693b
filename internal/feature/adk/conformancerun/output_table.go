// The table output format: a run as text for people.

package conformancerun

import (
	"bufio"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteTable writes r for people: a row per case (status, case, agent),
// then for every case that did not pass or has findings its reason, its
// request-body findings by group and its notes, and the summary last.
//
//	STATUS  CASE                      AGENT
//	PASS    core/sys_instruction_001  core_agent_001
//	FAIL    core/multi_001            multi_agent_001
//
//	core/multi_001: FAIL: event 2: content.parts[0].text: …
//	  system instruction (1):
//	    user message 0, agent study_buddy_coordinator, call 0: systemInstruction…
//
//	4 cases: 2 PASS, 1 FAIL, 1 SKIP
func WriteTable(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	io.WriteString(tw, "STATUS\tCASE\tAGENT\n")
	for _, c := range r.Cases {
		io.WriteString(tw, string(c.Status)+"\t"+textfmt.OneLine(c.Name)+"\t"+textfmt.OneLine(c.Agent)+"\n")
	}
	tw.Flush()
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Reason == "" && len(c.Calls) == 0 && len(c.Notes) == 0 {
			continue
		}
		bw.WriteString("\n" + textfmt.OneLine(c.Name) + ": " + string(c.Status))
		if c.Reason != "" {
			bw.WriteString(": " + textfmt.OneLine(c.Reason))
		}
		bw.WriteString("\n")
		for _, l := range findingLines(c) {
			bw.WriteString(strings.Repeat("  ", l.depth+1) + textfmt.OneLine(l.text) + "\n")
		}
		for _, n := range c.Notes {
			bw.WriteString("  note: " + textfmt.OneLine(n) + "\n")
		}
	}
	bw.WriteString("\n" + Summary(r) + "\n")
	return bw.Flush()
}
