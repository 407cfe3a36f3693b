// Tool calls as people read them: get_weather(city="Paris").

package textfmt

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Call renders a tool call as name(key=value, ...): keys sorted, values as
// compact JSON, each cut to valueWidth runes (a string inside its quotes,
// so it still reads as a string). Arguments that are nil (Python None) show
// as name(null), empty ones as name(). The result is one line a terminal
// prints as it is: JSON escapes control characters, and characters a
// terminal would not print become U+FFFD; spaces inside values are kept, so
// two calls that differ only there still look different.
func Call(name string, args map[string]any, valueWidth int) string {
	if args == nil {
		return OneLine(name) + "(null)"
	}
	var b strings.Builder
	b.WriteString(OneLine(name))
	b.WriteByte('(')
	for i, k := range slices.Sorted(maps.Keys(args)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(OneLine(k))
		b.WriteByte('=')
		b.WriteString(printable(jsonValue(args[k], valueWidth)))
	}
	b.WriteByte(')')
	return b.String()
}

// jsonValue renders v as compact JSON cut to width: a string is cut inside
// its quotes, anything else as text.
func jsonValue(v any, width int) string {
	if s, ok := v.(string); ok {
		return JSON(Truncate(s, width-2))
	}
	return Truncate(JSON(v), width)
}

// JSON renders v as compact JSON without HTML escaping.
func JSON(v any) string {
	b, err := CompactJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// printable replaces what a terminal would not print with U+FFFD, keeping
// spaces as they are.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || unicode.IsPrint(r) {
			return r
		}
		return utf8.RuneError
	}, s)
}
