// One-line, width-limited and counted text.

package textfmt

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// OneLine makes s safe for one line of a terminal or table cell: runs of
// white space (newlines, tabs) become one space, and characters a terminal
// would not print (control and formatting characters) become U+FFFD.
func OneLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case !unicode.IsPrint(r):
			r = utf8.RuneError
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// Truncate cuts s to at most width runes, ending it with … when cut (a
// width below 1 counts as 1).
func Truncate(s string, width int) string {
	width = max(width, 1)
	if len(s) <= width || utf8.RuneCountInString(s) <= width {
		return s
	}
	n := 0
	for i := range s {
		if n == width-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Plural counts a noun: "1 session", "0 sessions", "3 sessions".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
