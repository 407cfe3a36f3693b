// Markdown text and inline code that render as themselves.

package textfmt

import "strings"

// MarkdownText makes s one line of plain Markdown text that renders as
// itself, also inside a table cell: punctuation Markdown or HTML would act
// on is backslash-escaped.
func MarkdownText(s string) string {
	s = OneLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]<>()#+!|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MarkdownCode shows s as inline code, with a fence longer than any run of
// backticks inside it. In a table cell a "|" is escaped, which GitHub
// undoes inside code too.
func MarkdownCode(s string, inTable bool) string {
	s = OneLine(s)
	if inTable {
		s = strings.ReplaceAll(s, "|", "\\|")
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
