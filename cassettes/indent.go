// How much indenting may grow a JSON body before it is stored compact.

package cassettes

// maxIndentGrowth bounds indentation: a compact JSON body is stored
// indented only when that makes it at most this many times larger. Each
// line of indented JSON carries two spaces per level of nesting, so a body
// nested n deep grows with n²: 36 KB nested 9,000 deep would take 162 MB.
// Ordinary requests and answers grow 1.5 to 3 times.
const maxIndentGrowth = 4

// indentedSize is the length json.Indent(dst, b, "", "  ") gives for the
// valid JSON b, worked out without building it.
func indentedSize(b []byte) int {
	size, depth := len(b), 0
	inString, escaped := false, false
	for i, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if i+1 < len(b) && (b[i+1] == '}' || b[i+1] == ']') {
				continue // an empty object or array stays on its line
			}
			size += 1 + 2*depth
		case '}', ']':
			depth--
			if i > 0 && (b[i-1] == '{' || b[i-1] == '[') {
				continue
			}
			size += 1 + 2*depth
		case ',':
			size += 1 + 2*depth
		case ':':
			size++ // the space after it
		}
	}
	return size
}
