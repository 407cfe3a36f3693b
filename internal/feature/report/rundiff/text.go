// The text view: for a terminal, coloured when asked.

package rundiff

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// ANSI colours of the text view.
const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

// userWidth bounds a user turn quoted in a heading.
const userWidth = 60

type textWriter struct {
	w     io.Writer
	color bool
}

func (t *textWriter) paint(color, s string) string {
	if !t.color || s == "" {
		return s
	}
	return color + s + reset
}

// WordMarks finds the [-removed-] (group 1) and {+added+} (group 2) words
// of a word diff (matcher.WordDiff).
var WordMarks = regexp.MustCompile(`\[-(.*?)-\]|\{\+(.*?)\+\}`)

// words colours a word diff's [-removed-] and {+added+} words.
func (t *textWriter) words(s string) string {
	if !t.color {
		return s
	}
	return WordMarks.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, "[-") {
			return red + m + reset
		}
		return green + m + reset
	})
}

// WriteText writes the report for people: a summary, then every cassette,
// session and invocation that changed, what changed in it in the order
// tool calls, tool results, final response, what the model was sent,
// cost. Same invocations take one line. color adds ANSI colours.
func WriteText(w io.Writer, r *Report, color bool) error {
	t := &textWriter{w: w, color: color}
	fmt.Fprintf(w, "%s\n", t.paint(bold, "adkproxy diff "+textfmt.OneLine(r.Old)+" → "+textfmt.OneLine(r.New)))
	fmt.Fprintf(w, "%s\n", strings.TrimPrefix(SummaryLine(r), "diff: "))
	fmt.Fprintf(w, "cost: %s\n", CostText(r.Summary.Cost))
	for _, c := range r.Cassettes {
		// An added or removed cassette or session is its heading's status.
		fmt.Fprintf(w, "\n%s %s\n", t.paint(bold, "CASSETTE "+textfmt.OneLine(c.Name)), t.status(c.Status))
		for _, s := range c.Sessions {
			fmt.Fprintf(w, "  session %s %s %s\n", IDs(s.OldID, s.NewID), quote(s.User), t.status(s.Status))
			if s.Status == Same || s.Status == Added || s.Status == Removed {
				continue
			}
			for _, d := range s.Invocations {
				t.invocation(&d)
			}
		}
	}
	return nil
}

func (t *textWriter) invocation(d *InvocationDiff) {
	w := t.w
	user := quote(d.User)
	if d.NewUser != "" {
		user += " → " + quote(d.NewUser)
	}
	fmt.Fprintf(w, "    invocation %s %s %s\n", IDs(d.OldID, d.NewID), user, t.status(d.Status))
	if d.Status != Changed {
		return // same, or added or removed: the heading says it all
	}
	var rest []Change
	for _, ch := range d.Changes {
		switch ch.Kind {
		case ArgsChanged, ToolMoved, ToolAdded, ToolRemoved: // shown on the calls' lines
		default:
			rest = append(rest, ch)
		}
	}
	if len(d.Tools) > 0 {
		fmt.Fprintf(w, "      tool calls:\n")
		for _, ts := range d.Tools {
			line := textfmt.OneLine(ts.Agent) + ": " + textfmt.Call(ts.Name, ts.Args, callValueWidth)
			switch ts.Status {
			case Added:
				line = t.paint(green, "+ "+line)
			case Removed:
				line = t.paint(red, "- "+line)
			case Moved:
				line = t.paint(yellow, "↕ "+line) + fmt.Sprintf("  (moved from %s to %s)", position(ts.OldIndex), position(ts.NewIndex))
			case string(ArgsChanged):
				line = t.paint(yellow, "~ "+line)
			default:
				line = "  " + line
			}
			fmt.Fprintf(w, "        %s\n", line)
			for _, ch := range ts.ArgChanges {
				ch.Tool = ""
				fmt.Fprintf(w, "            %s\n", t.change(ch))
			}
		}
	}
	heading := ""
	for _, ch := range rest {
		h := sectionOf(ch.Kind)
		if ch.Kind == ResponseChanged && d.Similarity != nil {
			h += fmt.Sprintf(" (ROUGE-1 F %s)", strconv.FormatFloat(*d.Similarity, 'f', 2, 64))
		}
		if ch.Agent != "" && ch.Kind != ResultChanged && ch.Kind != ConfirmationChanged {
			h += " " + textfmt.OneLine(ch.Agent)
		}
		if h != heading {
			fmt.Fprintf(w, "      %s:\n", h)
			heading = h
		}
		fmt.Fprintf(w, "        %s\n", t.change(ch))
	}
	fmt.Fprintf(w, "      cost: %s\n", CostText(d.Cost))
}

// sectionOf names the part of an invocation a change belongs to.
func sectionOf(k Kind) string {
	switch k {
	case ResultChanged:
		return "tool results"
	case ConfirmationChanged:
		return "tool confirmations"
	case ResponseChanged:
		return "final response"
	}
	return "sent to"
}

func (t *textWriter) change(c Change) string {
	line := Describe(c)
	if c.Kind == ResponseChanged || c.Kind == InstructionChange {
		line = t.words(textfmt.OneLine(c.Words))
	}
	if c.Kind == InstructionChange {
		line = "system instruction: " + line
	}
	return line
}

func (t *textWriter) status(s string) string {
	switch s {
	case Added:
		return t.paint(green, s)
	case Removed:
		return t.paint(red, s)
	case Changed:
		return t.paint(yellow, s)
	}
	return s
}

// IDs names a session or invocation by its id on each side: "2", "2 → 3",
// "(new 4)", "(old 4)".
func IDs(old, new int) string {
	switch {
	case old <= 0:
		return "(new " + strconv.Itoa(new) + ")"
	case new <= 0:
		return "(old " + strconv.Itoa(old) + ")"
	case old == new:
		return strconv.Itoa(old)
	}
	return strconv.Itoa(old) + " → " + strconv.Itoa(new)
}

func quote(s string) string {
	return textfmt.JSON(textfmt.Truncate(textfmt.OneLine(s), userWidth))
}
