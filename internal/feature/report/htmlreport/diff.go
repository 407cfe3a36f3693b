// The page of 'adkproxy diff --format html': two runs side by side.

package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
)

// WriteDiff writes the comparison as one page: the summary, counts of
// each kind of change and the cost on top, then every cassette and
// session with its invocations, changed ones open, each showing its
// changes and the old and new timelines side by side.
func WriteDiff(w io.Writer, r *rundiff.Report) error {
	return write(w, diffPage(r))
}

// diffPage is the page WriteDiff writes.
func diffPage(r *rundiff.Report) *Page {
	s := r.Summary
	p := &Page{
		Title:   "adkproxy diff: " + r.Old + " → " + r.New,
		Summary: []string{strings.TrimPrefix(rundiff.SummaryLine(r), "diff: ")},
	}
	for _, k := range rundiff.Kinds {
		if n := s.Changes[k]; n > 0 {
			p.Counts = append(p.Counts, Count{string(k), n, rundiff.CountChanges(map[rundiff.Kind]int{k: n})})
		}
	}
	for _, row := range s.Cost.Rows() {
		p.Cost = append(p.Cost, CostRow{row.Name, fmt.Sprint(row.Old), fmt.Sprint(row.New), fmt.Sprintf("%+d", row.New-row.Old)})
	}
	o, n := s.Cost.Old, s.Cost.New
	p.Cost = append(p.Cost, CostRow{"latency", fmt.Sprintf("%.1f ms", o.LatencyMs), fmt.Sprintf("%.1f ms", n.LatencyMs), fmt.Sprintf("%+.1f ms", n.LatencyMs-o.LatencyMs)})
	for _, c := range r.Cassettes {
		if len(c.Sessions) == 0 {
			p.Blocks = append(p.Blocks, Block{Title: "cassette " + c.Name, Status: c.Status, Changes: changes(c.Changes, nil)})
		}
		for i, sd := range c.Sessions {
			b := Block{Title: fmt.Sprintf("cassette %s · session %s · %s", c.Name, rundiff.IDs(sd.OldID, sd.NewID), textfmt.Truncate(textfmt.OneLine(sd.User), 80)),
				Status: sd.Status, Changes: changes(sd.Changes, nil)}
			if i == 0 {
				b.Changes = append(changes(c.Changes, nil), b.Changes...)
			}
			for _, d := range sd.Invocations {
				b.Invocations = append(b.Invocations, invocation(&d))
			}
			p.Blocks = append(p.Blocks, b)
		}
	}
	return p
}

func invocation(d *rundiff.InvocationDiff) Invocation {
	title := "invocation " + rundiff.IDs(d.OldID, d.NewID) + ": " + textfmt.Truncate(textfmt.OneLine(d.User), 100)
	if d.NewUser != "" {
		title += " → " + textfmt.Truncate(textfmt.OneLine(d.NewUser), 100)
	}
	inv := Invocation{Title: title, Status: d.Status, Open: d.Status != rundiff.Same,
		Changes: changes(d.Changes, d.Similarity), Cost: rundiff.CostText(d.Cost)}
	oldStatus, newStatus := map[int]string{}, map[int]string{}
	for _, ts := range d.Tools {
		if ts.OldIndex >= 0 {
			oldStatus[ts.OldIndex] = ts.Status
		}
		if ts.NewIndex >= 0 {
			newStatus[ts.NewIndex] = ts.Status
		}
	}
	lookup := func(m map[int]string) func(int) string {
		return func(i int) string {
			if s, ok := m[i]; ok {
				return s
			}
			return rundiff.Same
		}
	}
	if d.Old != nil {
		inv.Sides = append(inv.Sides, timeline("old · invocation "+fmt.Sprint(d.OldID), d.Old, lookup(oldStatus)))
	} else {
		inv.Sides = append(inv.Sides, Side{Label: "old", Empty: "not in the old run"})
	}
	if d.New != nil {
		inv.Sides = append(inv.Sides, timeline("new · invocation "+fmt.Sprint(d.NewID), d.New, lookup(newStatus)))
	} else {
		inv.Sides = append(inv.Sides, Side{Label: "new", Empty: "not in the new run"})
	}
	return inv
}

func changes(cs []rundiff.Change, similarity *float64) []Change {
	var out []Change
	for _, c := range cs {
		ch := Change{Kind: string(c.Kind), Label: rundiff.KindText(c.Kind), Text: rundiff.Describe(c)}
		if c.Agent != "" {
			ch.Text = c.Agent + ": " + ch.Text
		}
		if c.Words != "" {
			prefix := ""
			if c.Agent != "" {
				prefix = c.Agent + ": "
			}
			if c.Tool != "" {
				prefix += c.Tool + " "
			}
			if c.Path != "" {
				prefix += c.Path + ": "
			}
			ch.Words = template.HTML(template.HTMLEscapeString(prefix)) + wordsHTML(c.Words)
		}
		if c.Kind == rundiff.ResponseChanged && similarity != nil {
			suffix := fmt.Sprintf(" (ROUGE-1 F %.2f)", *similarity)
			ch.Text += suffix
			ch.Words += template.HTML(template.HTMLEscapeString(suffix))
		}
		out = append(out, ch)
	}
	return out
}

// wordsHTML turns a word diff's [-removed-] and {+added+} into <del> and
// <ins>, everything escaped.
func wordsHTML(s string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range rundiff.WordMarks.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(template.HTMLEscapeString(s[last:m[0]]))
		if m[2] >= 0 {
			b.WriteString("<del>" + template.HTMLEscapeString(s[m[2]:m[3]]) + "</del>")
		} else {
			b.WriteString("<ins>" + template.HTMLEscapeString(s[m[4]:m[5]]) + "</ins>")
		}
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(s[last:]))
	return template.HTML(b.String())
}
