// Ignore paths: the fields left out of matching by default and by
// --ignore, their syntax, and removing them from a parsed body.

package matcher

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/wire"
)

// defaultIgnore lists request fields that legitimately differ between runs
// of the same agent and are left out of matching: each dialect's volatile
// fields, such as the call ids a client makes up (ADK's "adk-<uuid>"
// change every run; ids the server made are echoed from replayed
// responses, so ignoring them loses nothing).
var defaultIgnore = wire.Volatile(false)

// Path is a parsed ignore path such as contents[*].parts[0].text.
type Path []segment

type segment struct {
	key   string // object key; "" for an index
	index int    // array index; -1 for [*]
	name  string // [NAME]: the array elements whose name is NAME (see nameOf)
	nth   int    // [NAME#K]: only the K-th of them (from 1); 0 for all
}

// ParsePath reads the --ignore syntax: keys joined by dots, [N] for one
// array element, [*] for all, [NAME] for the elements named NAME (a
// function declaration, or a part calling or answering function NAME, as
// diffs address them), [NAME#K] for the K-th of those, ["odd.key"] for keys
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
			case isNth(inner):
				name, k, _ := strings.Cut(inner, "#")
				nth, _ := strconv.Atoi(k)
				p = append(p, segment{name: name, nth: nth, index: -1})
			default:
				i, err := strconv.Atoi(inner)
				if err != nil || i < 0 {
					return nil, fmt.Errorf("ignore path %q: [%s] must be [*], [N], [NAME], [NAME#K] or [\"key\"]", s, inner)
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
		seen := 0
		for _, e := range t {
			if seg.name == "" {
				p[1:].Remove(e)
				continue
			}
			if nameOf(e) != seg.name {
				continue
			}
			if seen++; seg.nth == 0 || seen == seg.nth {
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

// isNth reports whether s is NAME#K with K a number from 1.
func isNth(s string) bool {
	name, k, ok := strings.Cut(s, "#")
	n, err := strconv.Atoi(k)
	return ok && isName(name) && err == nil && n >= 1 && strconv.Itoa(n) == k
}

// nameOf is the name a dialect addresses an array element by (a function
// declaration by its name, a part by the function it calls or answers, a
// chat message by its role), or "" (wire.ElementName).
func nameOf(v any) string { return wire.ElementName(v) }

// label addresses values[i] by its name, as --ignore reads it: "NAME"
// when no other element of values has that name, "NAME#K" for the K-th of
// several, "" for an element without a name.
func label(values []any, i int) string {
	name := nameOf(values[i])
	if !isName(name) {
		return ""
	}
	k, n := 0, 0
	for j, v := range values {
		if nameOf(v) == name {
			n++
			if j <= i {
				k++
			}
		}
	}
	if n == 1 {
		return name
	}
	return name + "#" + strconv.Itoa(k)
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
