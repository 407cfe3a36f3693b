// Reading a one-line scalar longer than the splitter's read buffer (a
// long answer's text in a step's trajectory, a body stored on one line)
// as it streams in, so that its line is never gathered whole first.

package cassettes

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// A step's trajectory repeats its answer's text, so a cassette with a long
// answer holds that text twice: in the body's block literal and on one
// line of the trajectory. Such a line was gathered whole, copied into the
// piece, and copied again as its node's value, all to be dropped, since
// loading derives the trajectory from the bodies. The splitter hands a
// line longer than its read buffer that is "key: value" with a plain,
// single- or double-quoted value on it to longScalar instead: it checks
// the value as YAML would read it, and decodes it into a buffer of its own
// only when the value is kept (not in a trajectory), and the piece gets a
// one-line mark in its place, as for a block literal. A line that starts
// otherwise is gathered as before; one that goes on in a way it does not
// vouch for (a value that does not end on its line, a comment, an escape
// it does not know) sends the file to the one-document reader.

// longScalar is one such line being read.
type longScalar struct {
	indent int    // of the key
	key    string // the key, as written
	style  byte   // 0 plain, '\'' single-quoted, '"' double-quoted
	keep   bool   // decode the value (else only check it)
	value  []byte // the value so far, when kept
	carry  []byte // the end of a part that needs the next one: a cut character, escape or quote
	closed bool   // the closing quote was read
	bad    bool   // a form this does not vouch for: the file is read as one document instead
	room   int64  // the most the rest of the file can add to value, or -1 (appendRoom)
}

// startLongScalar recognises the first part of a long line as
// "key: value" after indent spaces, with the value's first bytes on it.
func startLongScalar(part []byte, keep bool) (*longScalar, bool) {
	indent := 0
	for indent < len(part) && part[indent] == ' ' {
		indent++
	}
	colon := bytes.Index(part[indent:], []byte(": "))
	if colon <= 0 {
		return nil, false
	}
	key := part[indent : indent+colon]
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return nil, false
		}
	}
	rest := part[indent+colon+2:]
	if len(rest) == 0 {
		return nil, false
	}
	s := &longScalar{indent: indent, key: string(key), keep: keep, room: -1}
	switch c := rest[0]; {
	case c == '"' || c == '\'':
		s.style = c
		rest = rest[1:]
	case bytes.IndexByte([]byte("-?:,[]{}#&*!|>%@` \t"), c) >= 0:
		return nil, false // an indicator, or not plainly a scalar
	}
	s.add(rest)
	return s, !s.bad
}

// add takes the next part of the line (without its line end).
func (s *longScalar) add(part []byte) {
	if s.bad {
		return
	}
	if len(s.carry) > 0 {
		part = append(s.carry, part...)
		s.carry = nil
	}
	switch s.style {
	case 0:
		s.plain(part)
	case '\'':
		s.single(part)
	default:
		s.double(part)
	}
}

// end takes the line's last part; the line must end there, with LF or
// CRLF, right after the value.
func (s *longScalar) end(part []byte) {
	text, ok := bytes.CutSuffix(part, []byte("\n"))
	if !ok {
		s.bad = true // the file ends on this line
		return
	}
	text, _ = bytes.CutSuffix(text, []byte("\r"))
	s.add(text)
	if s.bad {
		return
	}
	switch {
	case len(s.carry) > 0 && !(s.style == '\'' && string(s.carry) == "'"):
		s.bad = true // cut inside a character or an escape
	case s.style == '\'' && len(s.carry) > 0:
		s.carry, s.closed = nil, true // the last quote closed it
	}
	if s.style != 0 && !s.closed {
		s.bad = true // continues on the next line
	}
}

// text checks b as text YAML reads as is in this style, and keeps it;
// a cut character at its end waits for the next part.
func (s *longScalar) text(b []byte, allowed byte) {
	if cut := cutRune(b); cut > 0 {
		s.carry = append(s.carry, b[len(b)-cut:]...)
		b = b[:len(b)-cut]
	}
	if !readsAsIs(b, allowed) {
		s.bad = true
		return
	}
	if s.keep {
		s.value = appendRoom(s.value, b, s.room)
	}
}

// cutRune is how many bytes at the end of b start a UTF-8 character that
// is not complete.
func cutRune(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a first byte: complete if its length fits
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// plain: no comment (" #"), no mapping value (": "), no tab.
func (s *longScalar) plain(b []byte) {
	if s.closed {
		s.bad = true
		return
	}
	if bytes.Contains(b, []byte(" #")) || bytes.Contains(b, []byte(": ")) || bytes.IndexByte(b, '\t') >= 0 {
		s.bad = true
		return
	}
	// " " or ":" at the end may begin " #" or ": " with the next part.
	if n := len(b); n > 0 && (b[n-1] == ' ' || b[n-1] == ':') {
		s.text(b[:n-1], 0)
		s.carry = append(s.carry, b[n-1])
		return
	}
	s.text(b, 0)
}

// single: ” is a quote, a lone ' ends the value.
func (s *longScalar) single(b []byte) {
	for len(b) > 0 && !s.bad {
		if s.closed {
			s.bad = true // something after the closing quote
			return
		}
		i := bytes.IndexByte(b, '\'')
		if i < 0 {
			s.text(b, '\t')
			return
		}
		s.text(b[:i], '\t')
		if len(s.carry) > 0 {
			s.bad = true // a character cut by a quote
			return
		}
		switch {
		case i+1 == len(b):
			s.carry = append(s.carry, '\'') // a quote, or the end: the next part says
			return
		case b[i+1] == '\'':
			if s.keep {
				s.value = append(s.value, '\'')
			}
			b = b[i+2:]
		default:
			s.closed = true
			b = b[i+1:]
		}
	}
}

// double: escapes decoded, an unescaped " ends the value.
func (s *longScalar) double(b []byte) {
	for len(b) > 0 && !s.bad {
		if s.closed {
			s.bad = true
			return
		}
		i := bytes.IndexAny(b, "\\\"")
		if i < 0 {
			s.text(b, '\t')
			return
		}
		s.text(b[:i], '\t')
		if len(s.carry) > 0 {
			s.bad = true
			return
		}
		if b[i] == '"' {
			s.closed = true
			b = b[i+1:]
			continue
		}
		esc := b[i:]
		if len(esc) < 2 {
			s.carry = append(s.carry, esc...)
			return
		}
		if r, ok := simpleEscapes[esc[1]]; ok { // plaintree.go
			if s.keep {
				s.value = utf8.AppendRune(s.value, r)
			}
			b = esc[2:]
			continue
		}
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[esc[1]]
		if digits == 0 {
			s.bad = true
			return
		}
		if len(esc) < 2+digits {
			s.carry = append(s.carry, esc...)
			return
		}
		code, err := strconv.ParseUint(string(esc[2:2+digits]), 16, 32)
		if err != nil || code >= 0xd800 && code <= 0xdfff || code > 0x10ffff {
			s.bad = true
			return
		}
		if s.keep {
			s.value = utf8.AppendRune(s.value, rune(code))
		}
		b = esc[2+digits:]
	}
}
