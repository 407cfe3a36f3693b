// Reading YAML block literals (the bodies) without yaml.v3, for the session
// splitter: the plainest form only, anything else is left to yaml.v3.

package cassettes

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Bodies are most of a cassette's bytes, written as YAML block literals
// ("body: |-" and the indented lines below it), and they were more than
// half of yaml.v3's time. A block literal's value is its lines with their
// common indentation removed, so the session splitter takes such blocks out
// of the text it hands to yaml.v3, leaving a one-line mark, and rebuilds
// their values itself; fill puts each value back in place of its mark. Only
// the plainest form is taken ("key: |", "|-" or "|+" with nothing after,
// printable text, LF or CRLF line ends); anything else stays for yaml.v3.

// literal gathers the lines of one block literal after its header.
type literal struct {
	keyCol  int    // column of the key the block is the value of
	chomp   byte   // '-' strip, '+' keep, 0 clip
	indent  int    // the content's indentation, 0 until known
	leading int    // most spaces on an empty line before indent is known
	raw     []byte // the lines as read
	bad     bool   // a form this does not vouch for: give it back
	longAt  int    // where in raw the long line being read starts (startLong)
	inPlace bool   // value made its text in raw (valueInPlace): no one else holds those bytes
	room    int64  // the most the rest of the file can add to raw, or -1 (appendRoom)
}

// literalHeader recognises "key: |", "key: |-" or "key: |+", alone or as a
// sequence item's first key ("- key: |-"), after indent spaces.
func literalHeader(body []byte, indent int) (l *literal, ok bool) {
	keyCol := indent
	if bytes.HasPrefix(body, []byte("- ")) {
		body, keyCol = body[2:], indent+2
	}
	var chomp byte
	switch {
	case bytes.HasSuffix(body, []byte(": |")):
		body = body[:len(body)-3]
	case bytes.HasSuffix(body, []byte(": |-")), bytes.HasSuffix(body, []byte(": |+")):
		chomp = body[len(body)-1]
		body = body[:len(body)-4]
	default:
		return nil, false
	}
	if len(body) == 0 {
		return nil, false
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return nil, false
		}
	}
	return &literal{keyCol: keyCol, chomp: chomp, room: -1}, true
}

// add takes the next line, line end included. It returns false when the
// line is not part of the block, which has then ended; the caller reads
// that line as it would any other.
func (l *literal) add(line []byte) bool {
	text, ok := bytes.CutSuffix(line, []byte("\n"))
	if !ok {
		l.bad = true // the file ends inside the block
	}
	text, _ = bytes.CutSuffix(text, []byte("\r"))
	spaces := 0
	for spaces < len(text) && text[spaces] == ' ' {
		spaces++
	}
	switch {
	case spaces == len(text): // an empty line, or one of spaces only
		if l.indent == 0 {
			l.leading = max(l.leading, spaces)
		}
	case l.indent == 0 && (spaces <= l.keyCol || l.leading > spaces || text[spaces] == '\t'):
		l.bad = true // an empty block, or indentation YAML would refuse
		return false
	case l.indent == 0 || spaces >= l.indent:
		if l.indent == 0 {
			l.indent = spaces
		}
		if !literalText(text[l.indent:]) {
			l.bad = true
		}
	default: // less indented: the block has ended
		if text[spaces] == '\t' {
			l.bad = true // YAML refuses a tab where indentation is expected
		}
		return false
	}
	l.raw = appendRoom(l.raw, line, l.room)
	return true
}

// startLong takes the first part of a line longer than the splitter's
// read buffer (no line end yet), as add would take the line, and reports
// whether the line is part of the block; the rest comes through
// continueLong and endLong, straight into raw, so a body that is one long
// line is never gathered in a buffer of its own first. false: the caller
// gathers the line and hands it to add as usual.
func (l *literal) startLong(part []byte) bool {
	spaces := 0
	for spaces < len(part) && part[spaces] == ' ' {
		spaces++
	}
	switch {
	case spaces == len(part):
		return false
	case l.indent == 0 && (spaces <= l.keyCol || l.leading > spaces || part[spaces] == '\t'):
		return false
	case l.indent != 0 && spaces < l.indent:
		return false
	}
	if l.indent == 0 {
		l.indent = spaces
	}
	l.longAt = len(l.raw)
	l.raw = appendRoom(l.raw, part, l.room)
	return true
}

// continueLong takes the next part of the long line.
func (l *literal) continueLong(part []byte) {
	if l.room >= 0 && l.room <= wholeRoom && cap(l.raw)-len(l.raw) < len(part) {
		// Near the end of the file: the rest of it at once, rather than
		// doubling up to it (which allocated twice as much).
		nb := make([]byte, len(l.raw), int64(len(l.raw)+len(part))+l.room)
		copy(nb, l.raw)
		l.raw = nb
	}
	l.raw = appendRoom(l.raw, part, l.room)
}

// wholeRoom is how much of the end of a file a long line takes at once.
const wholeRoom = 4 << 20

// appendDoubling is append that doubles a buffer it must grow: append
// grows a large slice by a quarter, which for a body of many megabytes
// read 64 KiB at a time allocated five times its size in copies.
func appendDoubling(b, more []byte) []byte { return appendRoom(b, more, -1) }

// appendRoom is appendDoubling for a buffer that can grow by at most room
// more bytes after these (what is left of the file), when room is not
// negative: it grows no further than that, so a body at the end of a file
// does not take twice its size. (Growing a buffer of N bytes still holds
// the old one beside the new for a moment.)
func appendRoom(b, more []byte, room int64) []byte {
	if cap(b)-len(b) < len(more) {
		n := max(2*cap(b), len(b)+len(more))
		if room >= 0 && int64(n) > int64(len(b)+len(more))+room {
			n = len(b) + len(more) + int(room)
		}
		nb := make([]byte, len(b), n)
		copy(nb, b)
		b = nb
	}
	return append(b, more...)
}

// endLong takes the long line's last part (its line end included, unless
// the file ends there) and checks the whole line's text, as add does.
func (l *literal) endLong(part []byte) {
	l.raw = appendRoom(l.raw, part, l.room)
	text, ok := bytes.CutSuffix(l.raw[l.longAt:], []byte("\n"))
	if !ok {
		l.bad = true
	}
	text, _ = bytes.CutSuffix(text, []byte("\r"))
	if !literalText(text[l.indent:]) {
		l.bad = true
	}
}

// inPlaceFrom is the size from which a block's value is made in its own
// buffer (raw, then no longer the splitter's to reuse) rather than copied;
// from sharedFrom, only when raw is at most twice the value (as doubling
// grows it), so that a value does not keep a buffer grown for a larger
// one. A copy of a value of 64 KiB to 1 MiB, and then the copy a JSON body
// not compacted over itself takes, made such a body's loading allocate
// four times its size (issue 39 item 5).
const (
	inPlaceFrom = 1 << 20
	sharedFrom  = 64 << 10
)

// inPlaceValue reports whether the value is made in raw itself.
func (l *literal) inPlaceValue() bool {
	n := len(l.raw)
	return n >= inPlaceFrom || n >= sharedFrom && cap(l.raw) <= 2*n
}

// value is the block's value as YAML reads it: each line without the
// indentation, an empty line as a line break, then the chomping; ok is
// false when the block is to be given back to yaml.v3. A large block's
// value is made in raw itself (inPlaceValue), which the caller then drops.
func (l *literal) value() (v string, ok bool) {
	if l.bad || l.indent == 0 {
		return "", false
	}
	if l.inPlaceValue() {
		return l.valueInPlace()
	}
	var b strings.Builder
	b.Grow(len(l.raw))
	end := -1 // where the text of the last line with text ends
	for rest := l.raw; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line, _ = bytes.CutSuffix(line, []byte("\r"))
		if len(line) > l.indent {
			b.Write(line[l.indent:])
			end = b.Len()
		}
		b.WriteByte('\n')
	}
	if end < 0 {
		return "", false
	}
	v = b.String()
	switch l.chomp {
	case '-':
		return v[:end], true
	case '+':
		return v, true
	default:
		return v[:end+1], true
	}
}

// valueInPlace is value made by moving each line's text over its
// indentation in raw: one buffer for the lines and the value.
func (l *literal) valueInPlace() (string, bool) {
	out := 0
	end := -1
	for rest := 0; rest < len(l.raw); {
		i := bytes.IndexByte(l.raw[rest:], '\n')
		next := len(l.raw)
		line := l.raw[rest:]
		if i >= 0 {
			line, next = l.raw[rest:rest+i], rest+i+1
		}
		line, _ = bytes.CutSuffix(line, []byte("\r"))
		if len(line) > l.indent {
			out += copy(l.raw[out:], line[l.indent:])
			end = out
		}
		l.raw[out] = '\n' // never past what was read: each line loses its indentation (at least one space)
		out++
		rest = next
	}
	if end < 0 {
		return "", false
	}
	v := l.raw[:out]
	l.raw, l.inPlace = nil, true
	switch l.chomp {
	case '-':
		v = v[:end]
	case '+':
	default:
		v = v[:end+1]
	}
	return unsafe.String(unsafe.SliceData(v), len(v)), true
}

// ownedValues are the block values of one load made in place
// (valueInPlace): their bytes belong to that load alone, so decoding a
// JSON body may compact it over itself instead of into a copy.
type ownedValues struct {
	mu sync.Mutex
	m  map[*byte]int // data -> length
}

func (o *ownedValues) add(v string) {
	if o == nil || len(v) == 0 {
		return
	}
	o.mu.Lock()
	if o.m == nil {
		o.m = map[*byte]int{}
	}
	o.m[unsafe.StringData(v)] = len(v)
	o.mu.Unlock()
}

// take reports whether v is one of the values, and forgets it: it is
// decoded once.
func (o *ownedValues) take(v string) bool {
	if o == nil || len(v) == 0 {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p := unsafe.StringData(v)
	if n, ok := o.m[p]; ok && n == len(v) {
		delete(o.m, p)
		return true
	}
	return false
}

// literalText reports whether b is text YAML reads as is inside a block
// literal: printable characters and tabs, none that YAML takes for a line
// break (CR, NEL, LS, PS) and no byte order mark.
func literalText(b []byte) bool {
	i := 0
	// Eight bytes at a time while all are printable ASCII (most of a body).
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		// A byte below 0x20 or above 0x7e, or 0x7f itself, sets its high bit here.
		if ((w-ones*0x20)|(w+ones)|w)&highs != 0 {
			break
		}
	}
	return readsAsIs(b[i:], '\t')
}

// readsAsIs reports whether b holds only printable ASCII, the one control
// byte allowed (a tab in a literal, a line feed in plain lines) and the
// printable UTF-8 YAML reads as is: none that YAML takes for a line break
// (CR, NEL, LS, PS) and no byte order mark.
func readsAsIs(b []byte, allowed byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f || c == allowed {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r < 0x80 || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff || !yamlReadable(r, size) {
			return false
		}
		i += size
	}
	return true
}
