// The page of 'adkproxy ls --format html': one run.

package htmlreport

import (
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/runview"
)

// WriteRun writes one run read from dir as a page: a summary on top, then
// every session with its invocations (collapsed), each as a timeline.
func WriteRun(w io.Writer, dir string, run recorded.Run) error {
	p := &Page{Title: "adkproxy ls: " + dir}
	sessions, invocations, steps := 0, 0, 0
	for _, c := range run.Cassettes {
		for _, s := range c.Sessions {
			sessions++
			b := Block{Title: fmt.Sprintf("cassette %s · session %d", c.Name, s.ID)}
			for i := range s.Invocations {
				inv := &s.Invocations[i]
				invocations++
				steps += len(inv.Steps)
				cost := fmt.Sprintf("%s, latency %.1f ms", textfmt.Plural(len(inv.Steps), "model call"), float64(inv.Latency().Microseconds())/1000)
				if u, ok := inv.Usage(); ok {
					cost = fmt.Sprintf("tokens %d (prompt %d, output %d, thoughts %d), ", u.Total, u.Prompt, u.Candidates, u.Thoughts) + cost
				}
				b.Invocations = append(b.Invocations, Invocation{
					Title: fmt.Sprintf("invocation %d: %s", inv.ID, textfmt.Truncate(textfmt.OneLine(inv.User), 100)),
					Cost:  cost,
					Sides: []Side{timeline("", inv, func(int) string { return "same" })},
				})
			}
			p.Blocks = append(p.Blocks, b)
		}
	}
	p.Summary = []string{fmt.Sprintf("%s, %s, %s, %s", textfmt.Plural(len(run.Cassettes), "cassette"),
		textfmt.Plural(sessions, "session"), textfmt.Plural(invocations, "invocation"), textfmt.Plural(steps, "step"))}
	for _, c := range run.Cassettes {
		p.Summary = append(p.Summary, "cassette "+c.Name+": "+runview.ProvenanceText(c.Provenance))
	}
	return write(w, p)
}
