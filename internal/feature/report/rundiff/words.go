// Words shared by the views: how a change, a count and a cost read.

package rundiff

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// kindWords says each kind as a counted noun and a verb: "1 tool added".
var kindWords = map[Kind][2]string{
	CassetteAdded: {"cassette", "added"}, CassetteRemoved: {"cassette", "removed"},
	SessionAdded: {"session", "added"}, SessionRemoved: {"session", "removed"},
	InvocationAdded: {"invocation", "added"}, InvocationRemoved: {"invocation", "removed"},
	ToolAdded: {"tool", "added"}, ToolRemoved: {"tool", "removed"}, ToolMoved: {"tool", "moved"},
	ArgsChanged: {"argument", "changed"}, ResultChanged: {"result field", "changed"},
	ConfirmationChanged: {"confirmation", "changed"},
	ResponseChanged:     {"response", "changed"}, ModelChanged: {"model", "changed"},
	ConfigChanged: {"config field", "changed"}, InstructionChange: {"instruction", "changed"},
	ToolsChanged: {"declaration", "changed"},
}

// CountChanges says how many changes of each kind: "1 tool added, 1
// argument changed"; "" when there are none.
func CountChanges(counts map[Kind]int) string {
	var parts []string
	for _, k := range Kinds {
		if n := counts[k]; n > 0 {
			parts = append(parts, textfmt.Plural(n, kindWords[k][0])+" "+kindWords[k][1])
		}
	}
	return strings.Join(parts, ", ")
}

// KindText says a kind in words for people: "declaration changed" for
// tools_changed.
func KindText(k Kind) string { return kindWords[k][0] + " " + kindWords[k][1] }

func countOf(changes []Change) map[Kind]int {
	m := map[Kind]int{}
	for _, c := range changes {
		m[c.Kind]++
	}
	return m
}

// SummaryLine is the one-line verdict for stderr: "diff: 3 cassettes, 12
// invocations: 9 same, 2 changed (1 tool added, 1 argument changed), 1
// added; total tokens 1200 → 1249 (+4.1 %)".
func SummaryLine(r *Report) string {
	s := r.Summary
	line := fmt.Sprintf("diff: %s, %s: %d same", textfmt.Plural(s.Cassettes, "cassette"), textfmt.Plural(s.Invocations, "invocation"), s.Same)
	if s.Changed > 0 {
		line += fmt.Sprintf(", %d changed", s.Changed)
	}
	inside := map[Kind]int{} // what changed inside invocations; the rest is counted as added or removed
	for k, n := range s.Changes {
		switch k {
		case CassetteAdded, CassetteRemoved, SessionAdded, SessionRemoved, InvocationAdded, InvocationRemoved:
		default:
			inside[k] = n
		}
	}
	if counts := CountChanges(inside); counts != "" {
		line += " (" + counts + ")"
	}
	if s.Added > 0 {
		line += fmt.Sprintf(", %d added", s.Added)
	}
	if s.Removed > 0 {
		line += fmt.Sprintf(", %d removed", s.Removed)
	}
	return line + "; " + tokensPhrase(s.Cost.Old.Total, s.Cost.New.Total)
}

// tokensPhrase says how the runs' total token counts compare, with the
// counts, so that a bare "0.0 %" never has to be guessed at.
func tokensPhrase(a, b int64) string {
	switch {
	case a == 0 && b == 0:
		return "no token counts recorded"
	case a == b:
		return fmt.Sprintf("total tokens %d in both", a)
	}
	return fmt.Sprintf("total tokens %d → %d (%s)", a, b, percent(a, b))
}

// percent is the change from a to b: "+4.1 %", "0.0 %", or "+35" when a
// is 0.
func percent(a, b int64) string {
	switch {
	case a == 0 && b == 0:
		return "0.0 %"
	case a == 0:
		return fmt.Sprintf("%+d", b)
	}
	p := float64(b-a) / float64(a) * 100
	if p == 0 {
		return "0.0 %"
	}
	return fmt.Sprintf("%+.1f %%", p)
}

// figure says old → new with the delta and percent: "20 → 35 (+15, +75.0 %)",
// or just "20" when nothing changed.
func figure(a, b int64) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d → %d (%+d, %s)", a, b, b-a, percent(a, b))
}

func latency(a, b float64) string {
	if a == b {
		return fmt.Sprintf("%.1f ms", a)
	}
	p := "+∞"
	if a > 0 {
		p = fmt.Sprintf("%+.1f %%", (b-a)/a*100)
	}
	return fmt.Sprintf("%.1f → %.1f ms (%+.1f ms, %s)", a, b, b-a, p)
}

// CostRow is one count of a cost table, old and new.
type CostRow struct {
	Name     string
	Old, New int64
}

// Rows are the counts of a cost table: tokens of each kind and model
// calls (latency, a duration, is the views' own last row).
func (c Cost) Rows() []CostRow {
	o, n := c.Old, c.New
	return []CostRow{{"tokens", o.Total, n.Total}, {"prompt tokens", o.Prompt, n.Prompt}, {"output tokens", o.Output, n.Output},
		{"thought tokens", o.Thoughts, n.Thoughts}, {"model calls", int64(o.Calls), int64(n.Calls)}}
}

// CostText is one line of cost: tokens, model calls and latency.
func CostText(c Cost) string {
	o, n := c.Old, c.New
	return fmt.Sprintf("tokens %s; prompt %s; output %s; thoughts %s; model calls %s; latency %s",
		figure(o.Total, n.Total), figure(o.Prompt, n.Prompt), figure(o.Output, n.Output), figure(o.Thoughts, n.Thoughts),
		figure(int64(o.Calls), int64(n.Calls)), latency(o.LatencyMs, n.LatencyMs))
}

// Describe says one change in a line (without its kind's heading):
// `get_weather units: "celsius" → "fahrenheit"`.
func Describe(c Change) string {
	var b strings.Builder
	switch c.Kind {
	case ToolAdded:
		return "+ " + c.New
	case ToolRemoved:
		return "- " + c.Old
	case ToolMoved:
		return fmt.Sprintf("%s moved from %s to %s", c.Tool, c.Old, c.New)
	case CassetteAdded, CassetteRemoved, SessionAdded, SessionRemoved, InvocationAdded, InvocationRemoved:
		w := kindWords[c.Kind]
		return w[0] + " " + w[1] + ": " + textfmt.Truncate(textfmt.OneLine(c.Old+c.New), 80)
	}
	b.WriteString(map[Kind]string{ModelChanged: "model: ", ConfigChanged: "generation config ", ToolsChanged: "tool declaration "}[c.Kind])
	if c.Tool != "" {
		b.WriteString(c.Tool + " ")
	}
	if c.Path != "" {
		b.WriteString(c.Path + ": ")
	}
	switch {
	case c.Words != "":
		b.WriteString(textfmt.OneLine(c.Words))
	case c.Old == "":
		b.WriteString("added " + textfmt.OneLine(c.New))
	case c.New == "":
		b.WriteString("removed (was " + textfmt.OneLine(c.Old) + ")")
	default:
		b.WriteString(textfmt.OneLine(c.Old) + " → " + textfmt.OneLine(c.New))
	}
	return b.String()
}
