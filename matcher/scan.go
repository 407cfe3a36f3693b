// Replay's hot path: the canonical form of a JSON body written straight
// from its bytes in one pass, ignored fields left out, without a tree.

package matcher

import (
	"bytes"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/internal/wire"
)

// canonicalBytes writes the canonical form of a JSON document (an object or
// an array) straight from its bytes, leaving out ignored fields: the same
// bytes AppendCanonical gives for the parsed document, without building
// it. This is replay's hot path: one pass, no tree, few allocations. ok is
// false when src is not a single JSON object or array.
func canonicalBytes(dst, src []byte, ignore []Path) (out []byte, ok bool) {
	return scanCanonical(dst, src, ignore, nil)
}

// scanCanonical is canonicalBytes noting, when obj is set, where each
// top-level member and each element of a top-level array lands in the
// output (readObject; src is then an object).
func scanCanonical(dst, src []byte, ignore []Path, obj *object) (out []byte, ok bool) {
	s := scanPool.Get().(*scan)
	defer func() {
		s.src, s.ignore, s.obj, s.in = nil, nil, nil, nil
		scanPool.Put(s)
	}()
	s.src, s.pos, s.ignore, s.depth, s.obj, s.in = src, 0, ignore, 0, obj, nil
	s.keys, s.members, s.states = s.keys[:0], s.members[:0], s.states[:0]
	s.skipSpace()
	if s.pos >= len(src) || (src[s.pos] != '{' && src[s.pos] != '[') {
		return dst, false
	}
	for i := range ignore {
		s.states = append(s.states, pathState{path: i})
	}
	out, ok = s.value(dst, s.states[:len(ignore):len(ignore)])
	if !ok {
		return dst, false
	}
	s.skipSpace()
	return out, s.pos == len(src)
}

var scanPool = sync.Pool{New: func() any { return new(scan) }}

// pathState is how far an ignore path has matched the current position.
type pathState struct {
	path int // index into ignore
	next int // next segment to match
}

type scan struct {
	src    []byte
	pos    int
	ignore []Path
	// Stacks reused across the whole document, so objects and strings
	// cost no allocations: decoded keys, members of the open objects,
	// ignore-path states of the open values, and a scratch copy of an
	// object's members while they are put in order.
	keys    []byte
	members []member
	states  []pathState
	strBuf  []byte
	scratch []byte
	depth   int
	// in is the key of the member the value being read is (or is in an
	// array that is) the value of: where byte fields are told (isBytes).
	in []byte
	// obj, when set, collects the top-level members and the elements of
	// top-level arrays (readObject).
	obj *object
}

// maxDepth is encoding/json's nesting limit: deeper documents are not
// JSON to ParseJSON either, and recursion stays bounded.
const maxDepth = 10000

func (s *scan) skipSpace() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// child narrows the active ignore paths to a member or element, pushing
// them on s.states (the caller pops them); ignored reports that one of
// them matches it completely.
func (s *scan) child(active []pathState, key []byte, index int) (next []pathState, ignored bool) {
	start := len(s.states)
	for _, st := range active {
		seg := s.ignore[st.path][st.next]
		matches := (seg.key != "" && key != nil && string(key) == seg.key) || (seg.key == "" && index >= 0 && (seg.index < 0 || seg.index == index))
		if !matches {
			continue
		}
		if st.next+1 == len(s.ignore[st.path]) {
			// Like Path.remove: object members are removed, array
			// elements never (that would shift indexes).
			if index < 0 {
				s.states = s.states[:start]
				return nil, true
			}
			continue
		}
		s.states = append(s.states, pathState{path: st.path, next: st.next + 1})
	}
	return s.states[start:len(s.states):len(s.states)], false
}

func (s *scan) value(dst []byte, active []pathState) ([]byte, bool) {
	s.skipSpace()
	if s.pos >= len(s.src) {
		return dst, false
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		return s.object(dst, active)
	case c == '[':
		return s.array(dst, active)
	case c == '"':
		if raw, ok := s.plainString(); ok {
			return append(dst, raw...), true // nothing to decode, nothing to escape
		}
		str, ok := s.str(s.strBuf[:0])
		if !ok {
			return dst, false
		}
		s.strBuf = str[:0]
		return appendJSONBytes(dst, str), true
	case c == 't':
		return s.literal(dst, "true")
	case c == 'f':
		return s.literal(dst, "false")
	case c == 'n':
		return s.literal(dst, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		if !s.number() {
			return dst, false
		}
		return append(dst, canonicalNumber(string(s.src[start:s.pos]))...), true
	}
	return dst, false
}

func (s *scan) literal(dst []byte, word string) ([]byte, bool) {
	if !bytes.HasPrefix(s.src[s.pos:], []byte(word)) {
		return dst, false
	}
	s.pos += len(word)
	return append(dst, word...), true
}

// member is one object member: its decoded key at s.keys[keyStart:keyEnd]
// and its canonical value at dst[start:end].
type member struct {
	keyStart, keyEnd int
	start, end       int
	elems0, elems1   int // its elements in s.obj.elems (top level, ReadObject)
}

// object writes the object at s.pos in canonical form. Its bookkeeping
// is undone here rather than deferred: with as many returns as
// objectMembers has, deferred calls would not be inlined, and every
// object of every body paid for them.
func (s *scan) object(dst []byte, active []pathState) ([]byte, bool) {
	if s.depth++; s.depth > maxDepth {
		return dst, false
	}
	firstMember, keysBase := len(s.members), len(s.keys)
	dst, ok := s.objectMembers(dst, active)
	s.members, s.keys = s.members[:firstMember], s.keys[:keysBase]
	s.depth--
	return dst, ok
}

func (s *scan) objectMembers(dst []byte, active []pathState) ([]byte, bool) {
	s.pos++ // {
	base, firstMember, in := len(dst), len(s.members), s.in
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		return append(dst, "{}"...), true
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return dst, false
		}
		keyStart := len(s.keys)
		var ok bool
		if s.keys, ok = s.str(s.keys); !ok {
			return dst, false
		}
		key := s.keys[keyStart:]
		s.skipSpace()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return dst, false
		}
		s.pos++
		statesBase := len(s.states)
		next, ignored := s.child(active, key, -1)
		start := len(dst)
		elems0 := s.elemCount()
		if s.skipSpace(); s.pos < len(s.src) && s.src[s.pos] == '"' && isBytes(in, key) {
			dst, ok = s.bytesValue(dst)
		} else {
			s.in = key
			dst, ok = s.value(dst, next)
			s.in = in
		}
		s.states = s.states[:statesBase]
		if !ok {
			return dst, false
		}
		if ignored {
			dst = dst[:start]
		} else {
			s.members = append(s.members, member{keyStart: keyStart, keyEnd: len(s.keys), start: start, end: len(dst),
				elems0: elems0, elems1: s.elemCount()})
		}
		more, ok := s.next('}')
		if !ok {
			return dst, false
		}
		if !more {
			break
		}
	}
	// Sort by key; for duplicate keys the last one wins, as when decoding
	// into a map.
	members := s.members[firstMember:]
	keyOf := func(m member) []byte { return s.keys[m.keyStart:m.keyEnd] }
	slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare(keyOf(a), keyOf(b)) })
	s.scratch = append(s.scratch[:0], dst[base:]...)
	dst = append(dst[:base], '{')
	first := true
	for i, m := range members {
		if i+1 < len(members) && bytes.Equal(keyOf(members[i+1]), keyOf(m)) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONBytes(dst, keyOf(m))
		dst = append(dst, ':')
		if s.obj != nil && s.depth == 1 {
			s.obj.members = append(s.obj.members, objectMember{key: memberName(keyOf(m)),
				start: len(dst), end: len(dst) + m.end - m.start, elems0: m.elems0, elems1: m.elems1})
		}
		dst = append(dst, s.scratch[m.start-base:m.end-base]...)
	}
	return append(dst, '}'), true
}

// requestMembers are the top-level members of the bodies readObject reads
// most (each dialect's wire.Members): their names are noted without a copy.
var requestMembers = wire.Members()

// memberName is key as a string, one of requestMembers when it is one.
func memberName(key []byte) string {
	for _, name := range requestMembers {
		if string(key) == name {
			return name
		}
	}
	return string(key)
}

// elemCount is how many top-level array elements readObject has noted.
func (s *scan) elemCount() int {
	if s.obj == nil {
		return 0
	}
	return len(s.obj.elems)
}

func (s *scan) array(dst []byte, active []pathState) ([]byte, bool) {
	if s.depth++; s.depth > maxDepth {
		return dst, false
	}
	dst, ok := s.elements(dst, active)
	s.depth--
	return dst, ok
}

func (s *scan) elements(dst []byte, active []pathState) ([]byte, bool) {
	s.pos++ // [
	open := len(dst)
	noteElems := s.obj != nil && s.depth == 2 // a member of the object readObject reads
	dst = append(dst, '[')
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return append(dst, ']'), true
	}
	for i := 0; ; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		statesBase := len(s.states)
		next, _ := s.child(active, nil, i)
		var ok bool
		start := len(dst)
		dst, ok = s.value(dst, next)
		s.states = s.states[:statesBase]
		if !ok {
			return dst, false
		}
		if noteElems {
			s.obj.elems = append(s.obj.elems, span{start - open, len(dst) - open})
		}
		more, ok := s.next(']')
		if !ok {
			return dst, false
		}
		if !more {
			return append(dst, ']'), true
		}
	}
}

// next reads what follows a member or element: a comma (more to come) or
// the closing bracket (done); anything else is not JSON.
func (s *scan) next(closing byte) (more, ok bool) {
	s.skipSpace()
	if s.pos >= len(s.src) {
		return false, false
	}
	switch s.src[s.pos] {
	case ',':
		s.pos++
		return true, true
	case closing:
		s.pos++
		return false, true
	}
	return false, false
}

// str decodes a JSON string at s.pos into buf, as encoding/json does:
// escapes resolved, invalid UTF-8 and lone surrogates as U+FFFD.
func (s *scan) str(buf []byte) ([]byte, bool) {
	s.pos++ // opening quote
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '"':
			s.pos++
			return buf, true
		case c == '\\':
			if s.pos+1 >= len(s.src) {
				return buf, false
			}
			e := s.src[s.pos+1]
			s.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := s.hex4()
				if !ok {
					return buf, false
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if s.pos+1 < len(s.src) && s.src[s.pos] == '\\' && s.src[s.pos+1] == 'u' {
						save := s.pos
						s.pos += 2
						if r2, ok = s.hex4(); !ok {
							return buf, false
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							buf = utf8.AppendRune(buf, dec)
							continue
						}
						s.pos = save // not a pair: the second escape stands alone
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return buf, false
			}
		case c < 0x20:
			return buf, false
		default:
			// A run of plain text (most of any body) is copied whole.
			if n := plainPrefix(s.src[s.pos:]); n > 0 {
				buf = append(buf, s.src[s.pos:s.pos+n]...)
				s.pos += n
				continue
			}
			r, size := utf8.DecodeRune(s.src[s.pos:])
			buf = utf8.AppendRune(buf, r) // RuneError for invalid bytes
			s.pos += size
		}
	}
	return buf, false
}

// bytesValue writes the JSON string at s.pos, a byte field's value, in
// its canonical spelling (appendBase64).
func (s *scan) bytesValue(dst []byte) ([]byte, bool) {
	if raw, ok := s.plainString(); ok {
		return appendBase64(dst, raw[1:len(raw)-1]), true
	}
	str, ok := s.str(s.strBuf[:0])
	if !ok {
		return dst, false
	}
	s.strBuf = str[:0]
	return appendBase64(dst, str), true
}

// plainString is the JSON string at s.pos, quotes included, when it is
// its own canonical form and decodes to its bytes (no escapes, valid
// UTF-8), moving past it; else ok is false and s.pos stays.
func (s *scan) plainString() (raw []byte, ok bool) {
	end := s.pos + 1 + plainPrefix(s.src[s.pos+1:])
	if end >= len(s.src) || s.src[end] != '"' {
		return nil, false
	}
	raw, s.pos = s.src[s.pos:end+1], end+1
	return raw, true
}

func (s *scan) hex4() (rune, bool) {
	if s.pos+4 > len(s.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.src[s.pos:s.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.pos += 4
	return rune(v), true
}

// number checks the JSON number grammar at s.pos and moves past it.
func (s *scan) number() bool {
	src, p := s.src, s.pos
	if p < len(src) && src[p] == '-' {
		p++
	}
	switch {
	case p < len(src) && src[p] == '0':
		p++
	case p < len(src) && src[p] >= '1' && src[p] <= '9':
		for p < len(src) && src[p] >= '0' && src[p] <= '9' {
			p++
		}
	default:
		return false
	}
	if p < len(src) && src[p] == '.' {
		p++
		if p >= len(src) || src[p] < '0' || src[p] > '9' {
			return false
		}
		for p < len(src) && src[p] >= '0' && src[p] <= '9' {
			p++
		}
	}
	if p < len(src) && (src[p] == 'e' || src[p] == 'E') {
		p++
		if p < len(src) && (src[p] == '+' || src[p] == '-') {
			p++
		}
		if p >= len(src) || src[p] < '0' || src[p] > '9' {
			return false
		}
		for p < len(src) && src[p] >= '0' && src[p] <= '9' {
			p++
		}
	}
	s.pos = p
	return true
}

// appendJSONBytes is appendJSONString for bytes, without making them a
// string first.
func appendJSONBytes(dst, b []byte) []byte { return appendQuoted(dst, b) }
