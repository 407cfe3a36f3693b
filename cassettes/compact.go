// Compacting a JSON body kept indented in a cassette back to its wire
// bytes, in one pass.

package cassettes

import (
	"bytes"
	"encoding/json"
	"sync"
)

// compactJSON appends src to dst with the white space between tokens
// removed, as json.Compact does, and reports an error exactly when
// json.Compact would (with its message). Every JSON body of a cassette is
// compacted when it is read: one pass that checks the grammar as it copies
// is several times faster than encoding/json's scanner, which stays for
// the error message of a body that is not JSON.
func compactJSON(dst *bytes.Buffer, src []byte) error {
	c := compactor{src: src, out: dst.AvailableBuffer()}
	if c.value(0) && c.skipSpace() == len(src) {
		dst.Write(c.out)
		return nil
	}
	return json.Compact(dst, src)
}

// maxCompactDepth is encoding/json's nesting limit: deeper is left to it.
const maxCompactDepth = 10000

type compactor struct {
	src []byte
	pos int
	out []byte

	// find, when set, names a top-level member whose array elements
	// rawElements wants (see there).
	find      string
	collect   bool     // reading that member's value
	elems     [][]byte // its elements, as they are in src
	found     bool     // there is such a member
	kind      byte     // the last one's value: '[', 'n' (null) or 0 (anything else)
	escapeKey bool     // a top-level key has an escape: matching it is left to encoding/json
}

func (c *compactor) skipSpace() int {
	for c.pos < len(c.src) {
		switch c.src[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return c.pos
		}
	}
	return c.pos
}

// value copies one value (white space before it skipped); false when the
// text is not one, or is nested too deep.
func (c *compactor) value(depth int) bool {
	if c.skipSpace() >= len(c.src) || depth > maxCompactDepth {
		return false
	}
	switch b := c.src[c.pos]; {
	case b == '{':
		return c.container('}', depth, true)
	case b == '[':
		return c.container(']', depth, false)
	case b == '"':
		return c.str()
	case b == 't':
		return c.word("true")
	case b == 'f':
		return c.word("false")
	case b == 'n':
		return c.word("null")
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	}
	return false
}

// container copies an object (members "key": value) or an array.
func (c *compactor) container(closing byte, depth int, members bool) bool {
	c.out = append(c.out, c.src[c.pos])
	c.pos++
	if c.skipSpace() < len(c.src) && c.src[c.pos] == closing {
		c.out = append(c.out, closing)
		c.pos++
		return true
	}
	for {
		collect := false
		if members {
			keyStart := c.skipSpace()
			if keyStart >= len(c.src) || c.src[c.pos] != '"' || !c.str() {
				return false
			}
			if c.find != "" && depth == 0 {
				key := c.src[keyStart+1 : c.pos-1]
				c.escapeKey = c.escapeKey || bytes.IndexByte(key, '\\') >= 0
				collect = bytes.EqualFold(key, []byte(c.find))
			}
			if c.skipSpace() >= len(c.src) || c.src[c.pos] != ':' {
				return false
			}
			c.out = append(c.out, ':')
			c.pos++
		}
		if collect {
			c.elems, c.kind, c.collect, c.found = c.elems[:0], 0, false, true
			if c.skipSpace() < len(c.src) && (c.src[c.pos] == '[' || c.src[c.pos] == 'n') {
				c.kind, c.collect = c.src[c.pos], true
			}
		}
		start := c.skipSpace()
		if !c.value(depth + 1) {
			return false
		}
		if collect {
			c.collect = false
		} else if c.collect && depth == 1 && !members {
			c.elems = append(c.elems, c.src[start:c.pos])
		}
		if c.skipSpace() >= len(c.src) {
			return false
		}
		switch c.src[c.pos] {
		case ',':
			c.out = append(c.out, ',')
			c.pos++
		case closing:
			c.out = append(c.out, closing)
			c.pos++
			return true
		default:
			return false
		}
	}
}

// str copies a string as it is: no control characters, valid escapes.
func (c *compactor) str() bool {
	start := c.pos
	c.pos++ // opening quote
	for c.pos < len(c.src) {
		switch b := c.src[c.pos]; {
		case b == '"':
			c.pos++
			c.out = append(c.out, c.src[start:c.pos]...)
			return true
		case b < 0x20:
			return false
		case b == '\\':
			if c.pos+1 >= len(c.src) {
				return false
			}
			switch c.src[c.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.pos += 2
			case 'u':
				if c.pos+6 > len(c.src) {
					return false
				}
				for _, h := range c.src[c.pos+2 : c.pos+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				c.pos += 6
			default:
				return false
			}
		default:
			c.pos++
		}
	}
	return false
}

func (c *compactor) word(w string) bool {
	if !bytes.HasPrefix(c.src[c.pos:], []byte(w)) {
		return false
	}
	c.out = append(c.out, w...)
	c.pos += len(w)
	return true
}

// number copies -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (c *compactor) number() bool {
	start, p, src := c.pos, c.pos, c.src
	digits := func() bool {
		from := p
		for p < len(src) && src[p] >= '0' && src[p] <= '9' {
			p++
		}
		return p > from
	}
	if src[p] == '-' {
		p++
	}
	switch {
	case p < len(src) && src[p] == '0':
		p++
	case !digits():
		return false
	}
	if p < len(src) && src[p] == '.' {
		p++
		if !digits() {
			return false
		}
	}
	if p < len(src) && (src[p] == 'e' || src[p] == 'E') {
		p++
		if p < len(src) && (src[p] == '+' || src[p] == '-') {
			p++
		}
		if !digits() {
			return false
		}
	}
	c.out = append(c.out, src[start:p]...)
	c.pos = p
	return true
}

// rawElements is the elements of the top-level member name of a JSON
// object body as json.Unmarshal reads them into a []json.RawMessage field
// of that name: keys matched ignoring case, the last such member winning,
// null giving none. ok is false when encoding/json must be asked instead:
// the body is not one JSON object, a key has an escape, or the member is
// neither an array nor null. The elements are parts of body. Reading a
// run reads every request's history this way: one pass instead of
// encoding/json's two (it checks the whole body, then decodes it).
func rawElements(body []byte, name string) (elems [][]byte, ok bool) {
	scratch := compactScratch.Get().(*[]byte)
	defer compactScratch.Put(scratch)
	c := compactor{src: body, find: name, out: (*scratch)[:0]} // the compact copy is not wanted here
	valid := c.skipSpace() < len(body) && body[c.pos] == '{' && c.value(0) && c.skipSpace() == len(body)
	*scratch = c.out[:0]
	if !valid || c.escapeKey {
		return nil, false
	}
	switch c.kind {
	case '[':
		return c.elems, true
	case 'n':
		return nil, true
	}
	return nil, !c.found
}

// compactScratch holds rawElements' throwaway copies between calls.
var compactScratch = sync.Pool{New: func() any { return new([]byte) }}
