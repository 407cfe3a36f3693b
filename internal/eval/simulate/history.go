// The conversation history as the simulated user reads it: ADK's rendering
// of the session's events, one entry per text part (and, with
// include_function_calls, per tool call and result), blank-line separated.

package simulate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/adk/api"
)

// renderHistory renders events in order: "<author>: <text>" per non-thought
// text part, and with functionCalls also "<author> called tool '<name>'
// with args: <args>" and "Tool '<name>' returned: <response>", the values
// as Python dict reprs (as ADK renders them, keys sorted since JSON
// objects have no order in Go).
func renderHistory(events []api.Event, functionCalls bool) string {
	var entries []string
	for _, ev := range events {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			switch {
			case p == nil || p.Thought:
			case p.Text != "":
				entries = append(entries, ev.Author+": "+p.Text)
			case functionCalls && p.FunctionCall != nil:
				entries = append(entries, fmt.Sprintf("%s called tool '%s' with args: %s", ev.Author, p.FunctionCall.Name, pyRepr(p.FunctionCall.Args)))
			case functionCalls && p.FunctionResponse != nil:
				entries = append(entries, fmt.Sprintf("Tool '%s' returned: %s", p.FunctionResponse.Name, pyRepr(p.FunctionResponse.Response)))
			}
		}
	}
	return strings.Join(entries, "\n\n")
}

// pyRepr writes a decoded JSON value as Python's repr would.
func pyRepr(v any) string {
	var b strings.Builder
	writePyRepr(&b, v)
	return b.String()
}

func writePyRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyString(x))
	case float64:
		switch {
		case x == math.Trunc(x) && math.Abs(x) < 1e16:
			b.WriteString(strconv.FormatInt(int64(x), 10))
		default:
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyRepr(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyString(k))
			b.WriteString(": ")
			writePyRepr(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// pyString is Python's repr of a str: single quotes unless the text holds
// a single quote and no double quote.
func pyString(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
