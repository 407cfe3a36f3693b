// Finding a top-level array's elements in a JSON body without decoding it.

package wire

import (
	"bytes"
	"encoding/json"
)

// rawElements is the elements of the top-level member name of a JSON
// object body as json.Unmarshal reads them into a []json.RawMessage field
// of that name: keys matched ignoring case, the last such member winning,
// null giving none. ok is false when encoding/json must be asked instead:
// the body is not one JSON object, a key has an escape, or the member is
// neither an array nor null. The elements are parts of body. Reading a
// run reads every request's history this way: a check and a walk that
// copy nothing, where encoding/json would copy every turn.
func rawElements(body []byte, name string) (elems [][]byte, ok bool) {
	if !json.Valid(body) {
		return nil, false
	}
	w := walker{src: body}
	if w.space(); w.pos >= len(body) || body[w.pos] != '{' {
		return nil, false
	}
	w.pos++
	found, kind := false, byte(0)
	for {
		if w.space(); body[w.pos] == '}' {
			break
		}
		if body[w.pos] == ',' {
			w.pos++
			w.space()
		}
		start := w.pos
		w.str()
		key := body[start+1 : w.pos-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, false
		}
		w.space()
		w.pos++ // ':'
		w.space()
		if !bytes.EqualFold(key, []byte(name)) {
			w.value()
			continue
		}
		found, kind, elems = true, body[w.pos], elems[:0]
		if kind != '[' {
			w.value()
			continue
		}
		w.pos++
		for {
			if w.space(); body[w.pos] == ']' {
				w.pos++
				break
			}
			if body[w.pos] == ',' {
				w.pos++
				w.space()
			}
			s := w.pos
			w.value()
			elems = append(elems, body[s:w.pos])
		}
	}
	switch kind {
	case '[':
		return elems, true
	case 'n':
		return nil, true
	}
	return nil, !found
}

// walker steps over the values of JSON already known to be valid.
type walker struct {
	src []byte
	pos int
}

func (w *walker) space() {
	for w.pos < len(w.src) {
		switch w.src[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// str steps over the string at pos, quotes included.
func (w *walker) str() {
	for w.pos++; w.pos < len(w.src); w.pos++ {
		switch w.src[w.pos] {
		case '\\':
			w.pos++
		case '"':
			w.pos++
			return
		}
	}
}

// value steps over the value at pos.
func (w *walker) value() {
	switch w.src[w.pos] {
	case '"':
		w.str()
	case '{', '[':
		depth := 0
		for w.pos < len(w.src) {
			switch w.src[w.pos] {
			case '"':
				w.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.pos++
			if depth == 0 {
				return
			}
		}
	default:
		for w.pos < len(w.src) {
			switch w.src[w.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			w.pos++
		}
	}
}
