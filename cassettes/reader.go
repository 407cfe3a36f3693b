// Primitives for reading yaml.Node trees. Cassettes are decoded by walking
// nodes rather than into structs so that every error can name its line (as a
// FormatError), and so that anchors, aliases and custom tags are refused
// instead of expanded.

package cassettes

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FormatError is a problem at a place in a cassette file.
type FormatError struct {
	File string
	Line int
	Msg  string
	// Err is ErrCorrupt or ErrVersion.
	Err error
}

// Error names the file, the line and what is wrong.
func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// reader walks one file's nodes and turns problems into FormatErrors.
type reader struct {
	file  string
	owned *ownedValues // block values the session splitter made in place (literal.go); nil elsewhere
	sets  *headerSets  // the header sets read so far, shared by the exchanges that have the same (headersets.go)
}

func (r reader) errorf(n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &FormatError{File: r.file, Line: line, Msg: fmt.Sprintf(format, args...), Err: ErrCorrupt}
}

// allowedTags are the plain YAML types; anything else (!!binary, !custom,
// ...) is refused so a cassette can never ask the loader to do more than
// read text.
var allowedTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true, "!!map": true, "!!seq": true,
}

// implicitTags are what YAML itself resolves some untagged plain scalars to
// (2024-01-01 is a !!timestamp, << a !!merge); such a value is still read
// as its text, and merges are never performed.
var implicitTags = map[string]bool{"!!timestamp": true, "!!merge": true}

// check refuses aliases, anchors and custom tags anywhere below n.
func (r reader) check(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return r.errorf(n, "anchors and aliases are not allowed in a cassette")
	}
	if n.Kind != yaml.DocumentNode && !allowedTags[n.Tag] && !(implicitTags[n.Tag] && n.Style&yaml.TaggedStyle == 0) {
		return r.errorf(n, "tag %s is not allowed in a cassette", n.Tag)
	}
	for _, c := range n.Content {
		if err := r.check(c); err != nil {
			return err
		}
	}
	return nil
}

// yamlLine finds the line in yaml.v3's "yaml: line N: ..." messages.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// parserProblems are the problems yaml.v3's parser (as opposed to its
// scanner) reports. yaml.v3 v3.0.1 numbers their lines from 0 (and leaves
// line 0 out), scanner problems from 1; FormatError lines count from 1.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// yamlError turns a YAML syntax error in data into a FormatError at its
// line, as near as yaml.v3 tells it.
func (r reader) yamlError(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	switch {
	case parserProblems[msg]:
		line++
	case line > 0:
	case strings.HasPrefix(msg, "unknown anchor"):
		// Not a positional error: the alias could be anywhere.
	default:
		// Errors of the reader (bad bytes) carry no line; find it. Other
		// errors without a line are on the first one.
		line = 1
		if l := badCharLine(data); l > 0 {
			line = l
		}
	}
	return &FormatError{File: r.file, Line: line, Msg: "not valid YAML: " + msg, Err: ErrCorrupt}
}

// badCharLine is the line of the first byte that YAML refuses to read
// (invalid UTF-8 or a control character), or 0 if there is none.
func badCharLine(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		c, size := utf8.DecodeRune(data[i:])
		if !yamlReadable(c, size) {
			return line
		}
		if c == '\n' {
			line++
		}
		i += size
	}
	return 0
}

// yamlReadable reports whether YAML reads the character c, decoded from
// size bytes (invalid UTF-8 and most control characters are refused).
func yamlReadable(c rune, size int) bool {
	return c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c <= 0x7e) || c == 0x85 ||
		(c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && !(c == utf8.RuneError && size == 1)) ||
		(c >= 0x10000 && c <= 0x10ffff)
}

// fields reads a mapping whose keys must all be in known.
func (r reader) fields(n *yaml.Node, what string, known ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, r.errorf(n, "%s must be a mapping", what)
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, r.errorf(k, "%s has a key that is not a string", what)
		}
		if !slices.Contains(known, k.Value) {
			return nil, r.errorf(k, "unknown field %q in %s (known: %v)", k.Value, what, known)
		}
		if _, dup := out[k.Value]; dup {
			return nil, r.errorf(k, "field %q appears twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

func (r reader) str(n *yaml.Node, what string) (string, error) {
	if n == nil {
		return "", nil
	}
	if !isString(n) {
		return "", r.errorf(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (r reader) integer(n *yaml.Node, what string) (int, error) {
	if n == nil {
		return 0, nil
	}
	i, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return 0, r.errorf(n, "%s must be a whole number, not %q", what, n.Value)
	}
	return i, nil
}

// maxMillis is the longest duration a cassette can hold, in milliseconds.
const maxMillis = float64(math.MaxInt64 / int64(time.Millisecond))

func (r reader) number(n *yaml.Node, what string) (float64, error) {
	if n == nil {
		return 0, nil
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || !(f >= 0 && f <= maxMillis) {
		return 0, r.errorf(n, "%s must be a non-negative number of milliseconds, not %q", what, n.Value)
	}
	return f, nil
}

func (r reader) list(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, r.errorf(n, "%s must be a list", what)
	}
	return n.Content, nil
}
