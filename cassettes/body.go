// How a body is stored in YAML: as text, indented JSON or base64, whichever
// is most readable and still reads back as the exact bytes on the wire.

package cassettes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// How a body is stored in YAML. Every choice is checked by reading it back,
// so a body on disk always decodes to the exact bytes that were on the wire.
const (
	// encodingText: the YAML string is the body.
	encodingText = ""
	// encodingJSON: the YAML string is the body's JSON indented for
	// reading; the wire bytes are its compact form, plus a final newline
	// when the YAML string ends with one. Only used when compacting gives
	// back the original bytes exactly, so nothing is lost.
	encodingJSON = "json"
	// encodingBase64: for bytes that are not UTF-8 text or that YAML
	// cannot carry faithfully.
	encodingBase64 = "base64"
	// encodingFile: the YAML string names a side file beside the cassette
	// (sidefile.go) holding the bytes; they are read and checked on load.
	encodingFile = "file"
)

// minIndentedJSON is the size below which compact JSON stays on one line:
// indenting a tiny body only makes the cassette longer.
const minIndentedJSON = 120

// bodyNode returns the YAML scalar for b and the encoding to record beside it.
func bodyNode(b []byte) (*yaml.Node, string) {
	if !utf8.Valid(b) {
		return base64Node(b), encodingBase64
	}
	if indented, ok := indentCompactJSON(b); ok {
		if n, ok := faithfulScalar(indented); ok {
			return n, encodingJSON
		}
	}
	if n, ok := faithfulScalar(string(b)); ok {
		return n, encodingText
	}
	return base64Node(b), encodingBase64
}

// decodeBody turns a stored body back into wire bytes.
func decodeBody(value, encoding string) ([]byte, error) {
	switch encoding {
	case encodingText:
		return []byte(value), nil
	case encodingBase64:
		b, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return nil, fmt.Errorf("body is not valid base64: %v", err)
		}
		return b, nil
	case encodingJSON:
		var out bytes.Buffer
		out.Grow(len(value) + 1)
		// Only read: a copy of value was a third of this.
		src := unsafe.Slice(unsafe.StringData(value), len(value))
		if err := compactJSON(&out, src); err != nil {
			return nil, fmt.Errorf("body_encoding is json but the body is not JSON: %v", err)
		}
		if len(value) > 0 && value[len(value)-1] == '\n' {
			out.WriteByte('\n')
		}
		return out.Bytes(), nil
	case encodingFile:
		return nil, fmt.Errorf("body_encoding file (a side file) is only for request and response bodies")
	}
	return nil, fmt.Errorf("unknown body_encoding %q (want text, json, base64 or file)", encoding)
}

// compactInPlace is decodeBody's JSON case for a value whose bytes no one
// else holds (ownedValues): compacted over itself, so a large body takes
// no second buffer. Compacting only drops white space, so what is written
// never passes what was read. A value the compactor does not take (nested
// deeper than encoding/json allows, or not JSON) is an error: the piece is
// then read again by the reference reader, from the file.
func compactInPlace(value string) ([]byte, error) {
	src := unsafe.Slice(unsafe.StringData(value), len(value))
	newline := len(src) > 0 && src[len(src)-1] == '\n' // read before it is written over
	c := compactor{src: src, out: src[:0]}
	if !c.value(0) || c.skipSpace() != len(src) {
		return nil, fmt.Errorf("body_encoding is json but the body is not JSON the splitter compacts")
	}
	out := c.out
	if newline {
		out = append(out, '\n') // within src: the newline itself was read
	}
	return out, nil
}

// indentCompactJSON indents b when b is compact JSON (optionally followed by
// one newline), indenting grows it at most maxIndentGrowth times, and
// compacting the indented form restores b byte for byte.
func indentCompactJSON(b []byte) (string, bool) {
	if len(b) < minIndentedJSON || (b[0] != '{' && b[0] != '[') {
		return "", false
	}
	trailingNewline := b[len(b)-1] == '\n'
	core := b
	if trailingNewline {
		core = b[:len(b)-1]
	}
	var compact bytes.Buffer
	if json.Compact(&compact, core) != nil || !bytes.Equal(compact.Bytes(), core) {
		return "", false
	}
	if indentedSize(core) > maxIndentGrowth*len(core) {
		return "", false // deeply nested: stored compact (see maxIndentGrowth)
	}
	var indented bytes.Buffer
	if json.Indent(&indented, core, "", "  ") != nil {
		return "", false
	}
	if trailingNewline {
		indented.WriteByte('\n')
	}
	s := indented.String()
	if back, err := decodeBody(s, encodingJSON); err != nil || !bytes.Equal(back, b) {
		return "", false
	}
	return s, true
}

func base64Node(b []byte) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: base64.StdEncoding.EncodeToString(b)}
}

// faithfulScalar picks the most readable YAML style that reads back as
// exactly s: a literal block for multi-line text, else YAML's own choice,
// else double quotes (which escape anything). yaml.v3 loses, for instance,
// a leading newline in a literal block, hence the check.
func faithfulScalar(s string) (*yaml.Node, bool) {
	if simpleText(s) {
		// Most header values, paths and names: the encoder quotes these
		// when they would read as something else, and no style loses any
		// of their characters, so the check (which costs an encode and a
		// decode) is skipped. FuzzFaithfulScalar holds this to the check.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}, true
	}
	var styles []yaml.Style
	if bytes.ContainsRune([]byte(s), '\n') {
		styles = append(styles, yaml.LiteralStyle)
	}
	styles = append(styles, 0, yaml.DoubleQuotedStyle)
	for _, style := range styles {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style}
		if readsBackAs(n, s) {
			return n, true
		}
	}
	return nil, false
}

// simpleText reports whether s is one line of printable ASCII without
// leading or trailing spaces: text every YAML style carries exactly.
func simpleText(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || s == "<<" {
		return false // "<<" is written plain but reads back as a merge key
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// readsBackAs encodes n nested as deep as a body sits in a cassette, with
// the encoder settings Marshal uses (block scalars depend on their
// indentation), and checks that Unmarshal would accept it and read want.
func readsBackAs(n *yaml.Node, want string) bool {
	doc := mapping("interactions", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{
		mapping("request", mapping("body", n)),
	}})
	var buf bytes.Buffer
	if encodeYAML(&buf, doc) != nil {
		return false
	}
	var got yaml.Node
	if yaml.Unmarshal(buf.Bytes(), &got) != nil || (reader{}).check(&got) != nil {
		return false
	}
	// document > mapping > [interactions, seq] > mapping > [request, mapping] > [body, scalar]
	path := []int{0, 1, 0, 1, 1}
	at := &got
	for _, i := range path {
		if i >= len(at.Content) {
			return false
		}
		at = at.Content[i]
	}
	// Only plain types: a value that other YAML tools would read as a merge
	// key or a timestamp is quoted instead.
	return at.Kind == yaml.ScalarNode && at.Tag != "!!null" && allowedTags[at.Tag] && at.Value == want
}
