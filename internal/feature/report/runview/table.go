// The table 'adkproxy ls' prints: one block per cassette, one line per
// session, invocation, step and kind of other request.

package runview

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// Widths (in runes) beyond which the table cuts a value with "…". The JSON
// form is never cut.
const (
	userWidth   = 50 // the user text of an invocation
	textWidth   = 60 // a step's answer text
	valueWidth  = 30 // one argument value of a tool call
	callWidth   = 60 // one tool call, name(args)
	listWidth   = 60 // a list: an invocation's tool calls, a step's tool results
	agentsWidth = 40 // an invocation's agents
)

// WriteTable prints one block per cassette of a run read from dir. Lines of
// one kind (sessions, invocations, steps, other requests) are aligned
// across the whole block.
func WriteTable(w io.Writer, dir string, run recorded.Run) {
	if len(run.Cassettes) == 0 {
		fmt.Fprintf(w, "no cassettes in %s\n", textfmt.OneLine(dir))
		return
	}
	for i := range run.Cassettes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		c := &run.Cassettes[i]
		writeCassetteTable(w, dir, c, func(yield func(int, *recorded.Invocation) bool) {
			for _, s := range c.Sessions {
				for j := range s.Invocations {
					if !yield(s.ID, &s.Invocations[j]) {
						return
					}
				}
			}
		})
	}
}

// StreamTable prints the table WriteTable prints for the cassettes loaded
// from dir, reading them as recorded.Stream does: one invocation's model
// at a time, the cassettes consumed as they are read. It is the table of
// a large cassette in a fraction of the memory of its whole model (issue
// 39 item 12).
func StreamTable(w io.Writer, dir string, loaded map[string]*cassettes.Cassette) {
	if len(loaded) == 0 {
		fmt.Fprintf(w, "no cassettes in %s\n", textfmt.OneLine(dir))
		return
	}
	first := true
	recorded.Stream(dir, loaded, func(c *recorded.Cassette, invocations iter.Seq2[int, *recorded.Invocation]) {
		if !first {
			fmt.Fprintln(w)
		}
		first = false
		writeCassetteTable(w, dir, c, invocations)
	})
}

// writeCassetteTable prints one cassette's block, its invocations read
// once, in order, each with its session's id.
func writeCassetteTable(w io.Writer, dir string, c *recorded.Cassette, invocations iter.Seq2[int, *recorded.Invocation]) {
	var t table
	sessions, count, steps := 0, 0, 0
	calls := map[string]int{}
	t.add(headerRow) // the summary, once it is counted
	t.add(headerRow, "  "+ProvenanceText(c.Provenance))
	session := 0
	for id, inv := range invocations {
		if sessions == 0 || id != session {
			t.add(sessionRow, "  session "+strconv.Itoa(id))
			sessions, session = sessions+1, id
		}
		count++
		steps += len(inv.Steps)
		t.add(invocationRow, invocationCells(inv)...)
		for _, st := range inv.Steps {
			t.add(stepRow, stepCells(st)...)
			for _, h := range st.HTTPCalls {
				calls[h.Kind()]++
				t.add(httpRow, "        tool "+h.Kind()+" "+textfmt.OneLine(h.String()))
			}
		}
	}
	summary := []string{textfmt.Plural(sessions, "session"), textfmt.Plural(count, "invocation"), textfmt.Plural(steps, "step")}
	for _, kind := range []string{"http", "mcp", "a2a"} {
		if calls[kind] > 0 {
			summary = append(summary, textfmt.Plural(calls[kind], "tool "+kind+" call"))
		}
	}
	if len(c.Other) > 0 {
		summary = append(summary, textfmt.Plural(len(c.Other), "other request"))
	}
	t.rows[0].cells = []string{fmt.Sprintf("CASSETTE %s (%s): %s", textfmt.OneLine(c.Name),
		textfmt.OneLine(filepath.Join(dir, filepath.FromSlash(c.File))), strings.Join(summary, ", "))}
	if len(c.Other) > 0 {
		t.add(sessionRow, "  other")
		for _, o := range groupOther(othersOf(c.Other)) {
			count := ""
			if o.n > 1 {
				count = fmt.Sprintf("×%d", o.n)
			}
			if o.MCPStream != "" { // not anonymous: the stream its server's results came on
				t.add(otherRow, "    mcp stream", textfmt.OneLine(o.MCPStream+" ("+o.Method+" "+o.Path+")"), strconv.Itoa(o.Status), count)
				continue
			}
			t.add(otherRow, "    "+textfmt.OneLine(o.Method), textfmt.OneLine(o.Path), strconv.Itoa(o.Status), count)
		}
	}
	t.write(w)
}

func invocationCells(inv *recorded.Invocation) []string {
	id := "    invocation " + strconv.Itoa(inv.ID)
	if inv.Tag != "" {
		id += " [" + textfmt.OneLine(inv.Tag) + "]"
	}
	var calls []string
	for i, st := range inv.Steps {
		for j, tc := range st.ToolCalls {
			if answer, ok := inv.ConfirmationOf(i, j); ok {
				calls = append(calls, "confirm "+formatCall(tc)+"? → "+answer.Decision()+PayloadNote(answer.Payload))
				continue
			}
			if inv.IsRefused(i, j) {
				calls = append(calls, "confirm "+formatCall(tc)+"? → refused")
				continue
			}
			calls = append(calls, formatCall(tc))
		}
	}
	tools, tokenCell := "-", "-"
	if len(calls) > 0 {
		tools = textfmt.Truncate(strings.Join(calls, ", "), listWidth)
	}
	if usage, ok := inv.Usage(); ok {
		tokenCell = strconv.FormatInt(int64(usage.Total), 10)
	}
	agents := make([]string, len(inv.Agents))
	for i, a := range inv.Agents {
		agents[i] = textfmt.OneLine(a)
	}
	return []string{id, quoted(inv.User, userWidth),
		"agents: " + textfmt.Truncate(strings.Join(agents, ", "), agentsWidth),
		"steps: " + strconv.Itoa(len(inv.Steps)),
		"tokens: " + tokenCell,
		"tools: " + tools} // last: the widest and most varied cell
}

// stepCells: the step, its agent, then what it received (←), what it
// answered (→) and anything unusual about how it ended.
func stepCells(st recorded.Step) []string {
	var what []string
	if len(st.ToolResults) > 0 {
		names := make([]string, len(st.ToolResults))
		for i, r := range st.ToolResults {
			names[i] = textfmt.OneLine(r.Name)
			if adkapi.IsRefusal(r.Name, r.Response) {
				names[i] += " (refused at confirmation)"
			}
		}
		what = append(what, "← "+textfmt.Truncate(strings.Join(names, ", "), listWidth))
	}
	var answer []string
	if st.Text != "" {
		answer = append(answer, quoted(st.Text, textWidth))
	}
	for _, tc := range st.ToolCalls {
		answer = append(answer, formatCall(tc))
	}
	if len(answer) > 0 {
		what = append(what, "→ "+strings.Join(answer, ", "))
	} else if st.Status == 200 {
		what = append(what, "→ (no text, no tool calls)")
	}
	var notes []string
	if st.Status != 200 {
		notes = append(notes, strings.TrimSpace("HTTP "+strconv.Itoa(st.Status)+" "+textfmt.OneLine(st.ErrorStatus)))
	} else if st.FinishReason != "" && st.FinishReason != "STOP" {
		notes = append(notes, "finish: "+textfmt.OneLine(st.FinishReason))
	}
	if st.Reset {
		notes = append(notes, "connection reset")
	}
	if len(notes) > 0 {
		what = append(what, "["+strings.Join(notes, ", ")+"]")
	}
	return []string{"      step " + strconv.Itoa(st.Number), textfmt.OneLine(st.Agent), strings.Join(what, " ")}
}

// formatCall renders a tool call as name(arg=value, ...) (see textfmt.Call).
func formatCall(tc cassettes.ToolCall) string {
	return textfmt.Truncate(textfmt.Call(tc.Name, nonNil(tc.Args), valueWidth), callWidth)
}

// PayloadNote is " (payload …)" for an answer with a payload, else "".
func PayloadNote(payload any) string {
	if payload == nil {
		return ""
	}
	return " (payload " + textfmt.Truncate(textfmt.JSON(payload), valueWidth) + ")"
}

// quoted is s with whitespace collapsed, cut to width, as a JSON string.
func quoted(s string, width int) string {
	return textfmt.JSON(textfmt.Truncate(textfmt.OneLine(headOf(s, width)), width-2))
}

// headOf is the start of s that holds width+1 characters that are not
// white space, or all of s: collapsed and cut to width, it reads as s
// does, without collapsing the whole of a long answer first (a copy of
// it, grown rune by rune, was most of what ls allocated for a large one).
func headOf(s string, width int) string {
	seen := 0
	for i, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		if seen++; seen > width+1 {
			return s[:i]
		}
	}
	return s
}

type otherGroup struct {
	Other
	n int
}

// groupOther counts identical other requests (polling, model lists), in
// order of first appearance.
func groupOther(others []Other) []otherGroup {
	var out []otherGroup
	index := map[Other]int{}
	for _, o := range others {
		if i, ok := index[o]; ok {
			out[i].n++
			continue
		}
		index[o] = len(out)
		out = append(out, otherGroup{o, 1})
	}
	return out
}

// Row kinds of the table; rows of one kind share their columns.
const (
	headerRow = iota
	sessionRow
	invocationRow
	stepRow
	httpRow
	otherRow
)

// table aligns the cells of each kind of row across the whole table, even
// where rows of other kinds come in between, which one tabwriter alone
// cannot do: each kind goes through its own tabwriter, and the aligned
// lines are put back in order; or, as the table's rows always are, with
// the widths tabwriter would give, written a line at a time (the
// tabwriters and their lines held the whole table three more times, most
// of what ls of many small steps took beside the cassettes).
type table struct{ rows []tableRow }

type tableRow struct {
	kind  int
	cells []string
}

func (t *table) add(kind int, cells ...string) {
	t.rows = append(t.rows, tableRow{kind, cells})
}

func (t *table) write(w io.Writer) {
	widths, ok := t.columnWidths()
	if !ok {
		t.writeTabwriter(w)
		return
	}
	var line []byte
	for _, r := range t.rows {
		line = line[:0]
		for j, c := range r.cells {
			line = append(line, c...)
			if j < len(r.cells)-1 {
				for pad := widths[r.kind][j] - utf8.RuneCountInString(c); pad > 0; pad-- {
					line = append(line, ' ')
				}
			}
		}
		line = append(bytes.TrimRight(line, " "), '\n')
		w.Write(line)
	}
}

// columnWidths are the widths tabwriter (padding 2) gives each column of
// each kind of row, when every row of a kind has as many cells and no cell
// holds a byte tabwriter reads as a control (tab, line end, escape): then
// a column of a kind is one block across all its rows, as wide as its
// widest cell plus the padding, and the last cell of a row is no column.
// false: writeTabwriter.
func (t *table) columnWidths() (map[int][]int, bool) {
	widths := map[int][]int{}
	for _, r := range t.rows {
		ws, seen := widths[r.kind]
		if seen && len(ws) != len(r.cells)-1 {
			return nil, false
		}
		if !seen {
			ws = make([]int, len(r.cells)-1)
			widths[r.kind] = ws
		}
		for j, c := range r.cells {
			if strings.ContainsAny(c, "\t\n\v\f\r") || !utf8.ValidString(c) {
				return nil, false
			}
			if j < len(ws) {
				ws[j] = max(ws[j], utf8.RuneCountInString(c)+2)
			}
		}
	}
	return widths, true
}

// writeTabwriter aligns each kind of row through a tabwriter of its own
// and puts the lines back in order: what write does, for any cells.
func (t *table) writeTabwriter(w io.Writer) {
	aligned := map[int][]string{}
	for _, kind := range []int{headerRow, sessionRow, invocationRow, stepRow, httpRow, otherRow} {
		var buf bytes.Buffer
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		n := 0
		for _, r := range t.rows {
			if r.kind == kind {
				fmt.Fprintln(tw, strings.Join(r.cells, "\t"))
				n++
			}
		}
		tw.Flush()
		if n > 0 {
			aligned[kind] = strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		}
	}
	for _, r := range t.rows {
		fmt.Fprintln(w, strings.TrimRight(aligned[r.kind][0], " "))
		aligned[r.kind] = aligned[r.kind][1:]
	}
}
