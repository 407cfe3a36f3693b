// Ignore paths: the fields left out of matching by default and by
// --ignore, their syntax, and removing them from a parsed body.

package matcher

import (
	"fmt"
	"strconv"
	"strings"
)

// defaultIgnore lists request fields that legitimately differ between runs
// of the same agent and are left out of matching. Client-made call ids
// (ADK's "adk-<uuid>") change every run; ids the server made are echoed
// from replayed responses, so ignoring them loses nothing.
var defaultIgnore = []string{
	"contents[*].parts[*].functionCall.id",
	"contents[*].parts[*].functionResponse.id",
}

// Path is a parsed ignore path such as contents[*].parts[0].text.
type Path []segment

type segment struct {
	key   string // object key; "" for an index
	index int    // array index; -1 for [*]
	name  string // [NAME]: the array elements whose "name" is NAME (function declarations)
}

// ParsePath reads the --ignore syntax: keys joined by dots, [N] for one
// array element, [*] for all, [NAME] for the elements whose "name" field is
// NAME (a function declaration, as diffs address one), ["odd.key"] for keys
// with dots or brackets.
func ParsePath(s string) (Path, error) {
	var p Path
	rest := s
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return nil, fmt.Errorf("ignore path %q: unclosed [", s)
			}
			inner := rest[1:end]
			switch {
			case inner == "*":
				p = append(p, segment{index: -1})
			case strings.HasPrefix(inner, `"`):
				key, err := strconv.Unquote(inner)
				if err != nil {
					return nil, fmt.Errorf("ignore path %q: bad quoted key %s", s, inner)
				}
				p = append(p, segment{key: key})
			case isName(inner):
				p = append(p, segment{name: inner, index: -1})
			default:
				i, err := strconv.Atoi(inner)
				if err != nil || i < 0 {
					return nil, fmt.Errorf("ignore path %q: [%s] must be [*], [N], [NAME] or [\"key\"]", s, inner)
				}
				p = append(p, segment{index: i})
			}
			rest = strings.TrimPrefix(rest[end+1:], ".")
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("ignore path %q: empty key", s)
			}
			p = append(p, segment{key: rest[:end]})
			rest = strings.TrimPrefix(rest[end:], ".")
		}
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("ignore path is empty")
	}
	return p, nil
}

// Remove deletes every value at p from v (in place); array elements are
// never removed, only fields inside them.
func (p Path) Remove(v any) {
	if len(p) == 0 {
		return
	}
	seg, last := p[0], len(p) == 1
	switch t := v.(type) {
	case map[string]any:
		if seg.key == "" {
			return
		}
		if last {
			delete(t, seg.key)
		} else if child, ok := t[seg.key]; ok {
			p[1:].Remove(child)
		}
	case []any:
		if seg.key != "" || last { // array elements are never removed: that would shift indexes
			return
		}
		if seg.index >= 0 {
			if seg.index < len(t) {
				p[1:].Remove(t[seg.index])
			}
			return
		}
		for _, e := range t {
			if seg.name == "" || nameOf(e) == seg.name {
				p[1:].Remove(e)
			}
		}
	}
}

// isName reports whether s can be a function's name in a path: a letter
// or underscore, then letters, digits, "_", ".", ":" or "-" (the names
// Gemini accepts), and not a number.
func isName(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '.' || c == ':' || c == '-')) {
			return false
		}
	}
	return s != ""
}

// nameOf is an object's "name" field, or "".
func nameOf(v any) string {
	m, _ := v.(map[string]any)
	name, _ := m["name"].(string)
	return name
}

// selectsByName reports whether p has a [NAME] segment, which only a
// parsed tree can apply (the element's name may come after the field).
func (p Path) selectsByName() bool {
	for _, s := range p {
		if s.name != "" {
			return true
		}
	}
	return false
}
