// Reading the structure of a sessions piece without yaml.v3: the plain
// block layout Save writes, and nothing else.

package cassettes

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Once the session splitter has taken the bodies out, what yaml.v3 reads of
// a piece is the structure: short keys and values, a few flow lists and
// mappings (header values, trajectories), a mark for each body. yaml.v3's
// general scanner was still about half of loading, so plainTree reads the
// layout Save writes itself: block mappings and sequences indented by
// spaces, one key or item per line, plain, single- or double-quoted scalars
// on one line, flow collections on one line written as Save writes them
// ("[a, b]", "{k: v}"), and "key: |", "|-" or "|+" over one literal mark.
// It builds the node tree yaml.v3 builds for such text, as far as the
// readers use it (kind, value, whether it is null, literal style); anything
// it does not vouch for (comments, blank lines, tabs, CR, multi-line
// scalars, anchors, tags, ...) makes it give up, and the piece goes to
// yaml.v3 as before. FuzzPlainTree holds it to yaml.v3 on every input it
// accepts.

// plainLine is one line of a piece: its indentation and the rest.
type plainLine struct {
	indent int
	body   []byte
	num    int
}

type plainParser struct {
	lines []plainLine
	i     int
	// Nodes and child lists are cut from blocks, children gathered on a
	// stack first, and short strings shared: a piece makes thousands of
	// each, and allocating them one by one was most of the reading.
	nodes    []yaml.Node
	children []*yaml.Node
	stack    []*yaml.Node
	strs     map[string]string
	buf      []byte // a quoted scalar's value
	// The first blocks, sized by the piece, are cut.
	nodesSized, childrenSized bool
}

// node is a new node; its fields are set one by one, as copying a whole
// node into the block was a tenth of the reading.
func (p *plainParser) node(kind yaml.Kind, tag string, style yaml.Style, value string, line, col int) *yaml.Node {
	if len(p.nodes) == 0 {
		p.nodes = make([]yaml.Node, p.chunk(&p.nodesSized))
	}
	n := &p.nodes[0]
	p.nodes = p.nodes[1:]
	n.Kind, n.Style, n.Line, n.Column = kind, style, line, col
	n.Tag = tag
	if value != "" {
		n.Value = value
	}
	return n
}

// chunk is how many nodes (or children) to allocate at once: at first
// enough for the whole piece (the structure Save writes has about 2.6 a
// line), then a few more. Blocks of a fixed size were mostly left unused
// by the small pieces of a suite's cassettes, and clearing them showed.
func (p *plainParser) chunk(sized *bool) int {
	if *sized {
		return 256
	}
	*sized = true
	return 3*len(p.lines) + 16
}

// content takes the children pushed on the stack since base.
func (p *plainParser) content(base int) []*yaml.Node {
	n := len(p.stack) - base
	if n == 0 {
		return nil
	}
	if len(p.children) < n {
		p.children = make([]*yaml.Node, max(n, p.chunk(&p.childrenSized)))
	}
	c := p.children[:n:n]
	p.children = p.children[n:]
	copy(c, p.stack[base:])
	p.stack = p.stack[:base]
	return c
}

// str is string(b), shared for the short strings that repeat.
func (p *plainParser) str(b []byte) string {
	if len(b) > 48 {
		return string(b)
	}
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	p.strs[s] = s
	return s
}

// plainTree parses text as yaml.v3 would into a document node, or returns
// false when text is not in the plain layout.
func plainTree(text []byte) (*yaml.Node, bool) {
	if !plainBytes(text) || len(text) == 0 || text[len(text)-1] != '\n' {
		return nil, false
	}
	p := plainParser{lines: make([]plainLine, 0, bytes.Count(text, []byte{'\n'})), strs: map[string]string{}}
	for num := 1; len(text) > 0; num++ {
		i := bytes.IndexByte(text, '\n')
		line := text[:i]
		text = text[i+1:]
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		body := line[indent:]
		if len(body) == 0 || body[len(body)-1] == ' ' || body[0] == '#' {
			return nil, false // blank lines, trailing spaces, comments
		}
		p.lines = append(p.lines, plainLine{indent, body, num})
	}
	if len(p.lines) == 0 || p.lines[0].indent == 0 {
		return nil, false
	}
	n, ok := p.block(p.lines[0].indent)
	if !ok || p.i != len(p.lines) || n.Kind != yaml.SequenceNode {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{n}}, true
}

// plainBytes accepts printable ASCII, line feeds and the printable UTF-8
// that YAML reads as is (no tabs, CR, NEL, LS, PS or byte order mark).
func plainBytes(b []byte) bool {
	return readsAsIs(b, '\n')
}

func (p *plainParser) peek() (plainLine, bool) {
	if p.i >= len(p.lines) {
		return plainLine{indent: -1}, false
	}
	return p.lines[p.i], true
}

// block reads the block collection whose lines start at indent.
func (p *plainParser) block(indent int) (*yaml.Node, bool) {
	l, _ := p.peek()
	if isItem(l.body) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func isItem(body []byte) bool {
	return len(body) > 0 && body[0] == '-' && (len(body) == 1 || body[1] == ' ')
}

// sequence reads "- " items at indent; an item is a mapping starting on
// its dash's line, or one scalar or flow collection.
func (p *plainParser) sequence(indent int) (*yaml.Node, bool) {
	first, _ := p.peek()
	seq := p.node(yaml.SequenceNode, "!!seq", 0, "", first.num, indent+1)
	base := len(p.stack)
	for {
		l, more := p.peek()
		if !more || l.indent < indent {
			seq.Content = p.content(base)
			return seq, true
		}
		if l.indent != indent || !isItem(l.body) || len(l.body) < 3 || l.body[2] == ' ' || isItem(l.body[2:]) {
			return nil, false
		}
		rest := plainLine{indent: indent + 2, body: l.body[2:], num: l.num}
		if _, _, isKey := splitKey(rest.body); isKey {
			p.lines[p.i] = rest // the item's mapping starts on the dash's line
			m, ok := p.mapping(indent + 2)
			if !ok {
				return nil, false
			}
			p.stack = append(p.stack, m)
			continue
		}
		v, ok := p.inline(rest.body, rest.num, indent+3)
		if !ok {
			return nil, false
		}
		p.i++
		p.stack = append(p.stack, v)
		if next, more := p.peek(); more && next.indent > indent {
			return nil, false
		}
	}
}

// splitKey cuts "key: value" or "key:" where key is a plain word.
func splitKey(body []byte) (key, value []byte, ok bool) {
	i := bytes.IndexByte(body, ':')
	if i <= 0 || !plainKey(body[:i]) {
		return nil, nil, false
	}
	switch {
	case i == len(body)-1:
		return body[:i], nil, true
	case body[i+1] == ' ' && i+2 < len(body) && body[i+2] != ' ':
		return body[:i], body[i+2:], true
	}
	return nil, nil, false
}

// maxPlainKey bounds a key's length (YAML reads an implicit key of at
// most 1024 characters).
const maxPlainKey = 256

// plainKey: letters, digits, '_', '-' and '.', not starting with '-' or '.'.
func plainKey(k []byte) bool {
	if len(k) > maxPlainKey {
		return false
	}
	for j, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || (j > 0 && (c == '-' || c == '.'))) {
			return false
		}
	}
	return true
}

// mapping reads "key: value" lines at indent.
func (p *plainParser) mapping(indent int) (*yaml.Node, bool) {
	first, _ := p.peek()
	m := p.node(yaml.MappingNode, "!!map", 0, "", first.num, indent+1)
	base := len(p.stack)
	for {
		l, more := p.peek()
		if !more || l.indent < indent {
			m.Content = p.content(base)
			return m, true
		}
		if l.indent != indent {
			return nil, false
		}
		k, v, ok := splitKey(l.body)
		if !ok {
			return nil, false
		}
		key := p.plainScalar(k, l.num, indent+1)
		p.i++
		var value *yaml.Node
		switch {
		case v == nil:
			next, more := p.peek()
			switch {
			case more && next.indent > indent:
				if value, ok = p.block(next.indent); !ok {
					return nil, false
				}
			case more && next.indent == indent && isItem(next.body):
				return nil, false // a sequence at its key's indentation
			default:
				value = p.node(yaml.ScalarNode, "!!null", 0, "", l.num, len(k)+indent+2)
			}
		case v[0] == '|':
			if value, ok = p.literal(v, indent); !ok {
				return nil, false
			}
			value.Line, value.Column = l.num, indent+len(k)+3
		default:
			if value, ok = p.inline(v, l.num, indent+len(k)+3); !ok {
				return nil, false
			}
			if next, more := p.peek(); more && next.indent > indent {
				return nil, false // a scalar continued on the next line
			}
		}
		p.stack = append(p.stack, key, value)
	}
}

// literal reads a block literal header and the one mark line the splitter
// left of its lines (split.go).
func (p *plainParser) literal(header []byte, indent int) (*yaml.Node, bool) {
	var keep bool
	switch string(header) {
	case "|", "|+":
		keep = true
	case "|-":
	default:
		return nil, false
	}
	l, more := p.peek()
	if !more || l.indent <= indent || !bytes.HasPrefix(l.body, []byte(literalMark)) {
		return nil, false
	}
	for _, c := range l.body[len(literalMark):] {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	p.i++
	if next, more := p.peek(); more && next.indent > indent {
		return nil, false
	}
	value := string(l.body)
	if keep {
		value += "\n"
	}
	return p.node(yaml.ScalarNode, "!!str", yaml.LiteralStyle, value, 0, 0), true
}

// inline reads a value that must fill the rest of its line: a flow
// collection, a quoted scalar or a plain one.
func (p *plainParser) inline(v []byte, line, col int) (*yaml.Node, bool) {
	switch v[0] {
	case '[', '{':
		n, rest, ok := p.flowNode(v, line, col)
		return n, ok && len(rest) == 0
	case '\'', '"':
		n, rest, ok := p.quoted(v, line, col)
		return n, ok && len(rest) == 0
	}
	if !plainValue(v, false) {
		return nil, false
	}
	return p.plainScalar(v, line, col), true
}

// plainStart: what may begin a plain scalar here; YAML's indicators may
// not, but for '-' before a letter, a digit or '.'.
func plainStart(v []byte) bool {
	switch c := v[0]; c {
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '<', '\'', '"', '%', '@', '`', ' ':
		return false
	case '-':
		return len(v) > 1 && (v[1] >= '0' && v[1] <= '9' || v[1] >= 'a' && v[1] <= 'z' || v[1] >= 'A' && v[1] <= 'Z' || v[1] == '.')
	}
	return true
}

// plainValue reports whether v, all of it, is one plain scalar: in a flow
// collection also without flow indicators, ':' or '?' (which libyaml refuses there).
func plainValue(v []byte, flow bool) bool {
	if len(v) == 0 || !plainStart(v) || v[len(v)-1] == ' ' || v[len(v)-1] == ':' {
		return false
	}
	if bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) {
		return false
	}
	return !flow || !bytes.ContainsAny(v, ",[]{}:#?")
}

// plainScalar is the node of plain text v; YAML reads a few words as null.
func (p *plainParser) plainScalar(v []byte, line, col int) *yaml.Node {
	value := p.str(v)
	return p.node(yaml.ScalarNode, plainTag(value), 0, value, line, col)
}

// plainTag is the type YAML gives plain text v (the tag yaml.v3 puts on
// its node, which decoding a confirmation's values goes by): words
// starting with a letter are text but for true, false and null; the
// rest is yaml.v3's own resolution.
func plainTag(v string) string {
	if c := v[0]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		case "null", "Null", "NULL":
			return "!!null"
		}
		return "!!str"
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Value: v}
	return n.ShortTag()
}

// flowNode reads a flow sequence or mapping as Save writes them: entries
// separated by ", ", "key: value" in mappings, all on the line.
func (p *plainParser) flowNode(v []byte, line, col int) (n *yaml.Node, rest []byte, ok bool) {
	closer := byte(']')
	n = p.node(yaml.SequenceNode, "!!seq", yaml.FlowStyle, "", line, col)
	if v[0] == '{' {
		closer = '}'
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
	}
	rest = v[1:]
	if len(rest) > 0 && rest[0] == closer {
		return n, rest[1:], true
	}
	base := len(p.stack)
	for {
		if n.Kind == yaml.MappingNode {
			var key *yaml.Node
			if key, rest, ok = p.flowKey(rest, line); !ok {
				return nil, nil, false
			}
			p.stack = append(p.stack, key)
		}
		var item *yaml.Node
		if item, rest, ok = p.flowItem(rest, line); !ok {
			return nil, nil, false
		}
		p.stack = append(p.stack, item)
		switch {
		case len(rest) > 0 && rest[0] == closer:
			n.Content = p.content(base)
			return n, rest[1:], true
		case len(rest) > 2 && rest[0] == ',' && rest[1] == ' ' && rest[2] != ' ':
			rest = rest[2:]
		default:
			return nil, nil, false
		}
	}
}

// flowKey reads "key: " in a flow mapping, the key plain or quoted (Save
// quotes keys YAML 1.1 would read as booleans, such as "n").
func (p *plainParser) flowKey(v []byte, line int) (*yaml.Node, []byte, bool) {
	if len(v) > 0 && (v[0] == '\'' || v[0] == '"') {
		key, rest, ok := p.quoted(v, line, 0)
		if !ok || len(v)-len(rest) > maxPlainKey || !bytes.HasPrefix(rest, []byte(": ")) {
			return nil, nil, false
		}
		return key, rest[2:], true
	}
	i := bytes.Index(v, []byte(": "))
	if i <= 0 || !plainKey(v[:i]) {
		return nil, nil, false
	}
	return p.plainScalar(v[:i], line, 0), v[i+2:], true
}

// flowItem reads one value inside a flow collection.
func (p *plainParser) flowItem(v []byte, line int) (*yaml.Node, []byte, bool) {
	if len(v) == 0 {
		return nil, nil, false
	}
	switch v[0] {
	case '[', '{':
		return p.flowNode(v, line, 0)
	case '\'', '"':
		return p.quoted(v, line, 0)
	}
	end := bytes.IndexAny(v, ",]}")
	if end < 0 || !plainValue(v[:end], true) {
		return nil, nil, false
	}
	return p.plainScalar(v[:end], line, 0), v[end:], true
}

// quoted reads a single- or double-quoted scalar that ends on its line.
func (p *plainParser) quoted(v []byte, line, col int) (*yaml.Node, []byte, bool) {
	n := p.node(yaml.ScalarNode, "!!str", 0, "", line, col)
	if v[0] == '\'' {
		n.Style = yaml.SingleQuotedStyle
		out := p.buf[:0]
		for i := 1; i < len(v); i++ {
			if v[i] != '\'' {
				out = append(out, v[i])
				continue
			}
			if i+1 < len(v) && v[i+1] == '\'' {
				out = append(out, '\'')
				i++
				continue
			}
			n.Value, p.buf = p.str(out), out
			return n, v[i+1:], true
		}
		return nil, nil, false
	}
	n.Style = yaml.DoubleQuotedStyle
	out := p.buf[:0]
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch c {
		case '"':
			n.Value, p.buf = p.str(out), out
			return n, v[i+1:], true
		case '\\':
		default:
			out = append(out, c)
			continue
		}
		if i+1 >= len(v) {
			return nil, nil, false
		}
		i++
		if r, ok := simpleEscapes[v[i]]; ok {
			out = utf8.AppendRune(out, r)
			continue
		}
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[v[i]]
		if digits == 0 || i+digits >= len(v) {
			return nil, nil, false
		}
		code, err := strconv.ParseUint(string(v[i+1:i+1+digits]), 16, 32)
		if err != nil || code > utf8.MaxRune || code >= 0xd800 && code <= 0xdfff {
			return nil, nil, false
		}
		out = utf8.AppendRune(out, rune(code))
		i += digits
	}
	return nil, nil, false
}

// simpleEscapes are the one-character escapes of double-quoted YAML.
var simpleEscapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r', 'e': 0x1b,
	' ': ' ', '"': '"', '/': '/', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029,
}
