// Decoding a JSON body into plain Go values with the scanner of the
// canonical form: what encoding/json gives an any with UseNumber, without
// its decoder copying the body into a buffer of its own first (the parse
// every recorded model call pays).

package matcher

import "encoding/json"

// decodeJSON is src as one JSON value and nothing after it but white space:
// objects map[string]any (a repeated key keeps its last value), arrays
// []any, numbers json.Number as written, strings as encoding/json decodes
// them.
func decodeJSON(src []byte) (v any, ok bool) {
	s := scanPool.Get().(*scan)
	defer func() {
		s.src = nil
		scanPool.Put(s)
	}()
	s.src, s.pos, s.depth = src, 0, 0
	if v, ok = s.tree(); !ok {
		return nil, false
	}
	s.skipSpace()
	return v, s.pos == len(src)
}

// tree decodes the value at s.pos.
func (s *scan) tree() (any, bool) {
	s.skipSpace()
	if s.pos >= len(s.src) {
		return nil, false
	}
	switch c := s.src[s.pos]; {
	case c == '{':
		return s.objectTree()
	case c == '[':
		return s.arrayTree()
	case c == '"':
		return s.strTree()
	case c == 't':
		_, ok := s.literal(s.scratch[:0], "true")
		return true, ok
	case c == 'f':
		_, ok := s.literal(s.scratch[:0], "false")
		return false, ok
	case c == 'n':
		_, ok := s.literal(s.scratch[:0], "null")
		return nil, ok
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		if !s.number() {
			return nil, false
		}
		return json.Number(s.src[start:s.pos]), true
	}
	return nil, false
}

func (s *scan) strTree() (string, bool) {
	if raw, ok := s.plainString(); ok {
		return string(raw[1 : len(raw)-1]), true // its bytes are its value: copied once
	}
	str, ok := s.str(s.strBuf[:0])
	s.strBuf = str[:0]
	return string(str), ok
}

func (s *scan) objectTree() (any, bool) {
	if s.depth++; s.depth > maxDepth {
		return nil, false
	}
	defer func() { s.depth-- }()
	s.pos++ // {
	m := make(map[string]any)
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == '}' {
		s.pos++
		return m, true
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.src) || s.src[s.pos] != '"' {
			return nil, false
		}
		k, ok := s.strTree()
		if !ok {
			return nil, false
		}
		s.skipSpace()
		if s.pos >= len(s.src) || s.src[s.pos] != ':' {
			return nil, false
		}
		s.pos++
		v, ok := s.tree()
		if !ok {
			return nil, false
		}
		m[k] = v
		more, ok := s.next('}')
		if !ok {
			return nil, false
		}
		if !more {
			return m, true
		}
	}
}

func (s *scan) arrayTree() (any, bool) {
	if s.depth++; s.depth > maxDepth {
		return nil, false
	}
	defer func() { s.depth-- }()
	s.pos++ // [
	a := make([]any, 0)
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == ']' {
		s.pos++
		return a, true
	}
	for {
		v, ok := s.tree()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		more, ok := s.next(']')
		if !ok {
			return nil, false
		}
		if !more {
			return a, true
		}
	}
}
