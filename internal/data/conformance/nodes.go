// Reading yaml.Node trees of corpus files: every problem names file:line,
// and anchors, aliases and custom tags are refused rather than expanded.

package conformance

import (
	"errors"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// ErrCorpus is what every error about a corpus file wraps.
var ErrCorpus = errors.New("unreadable conformance corpus file")

// FileError is a problem at a place in a corpus file.
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *FileError) Unwrap() error { return ErrCorpus }

// doc walks one file's nodes.
type doc struct{ file string }

func (d doc) errorf(n *yaml.Node, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &FileError{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// readWith reads a file and parses it with parse.
func readWith[T any](file string, parse func(string, []byte) (T, error)) (T, error) {
	data, err := userfile.Read(file)
	if err != nil {
		var zero T
		return zero, err
	}
	return parse(file, data)
}

func (d doc) parse(data []byte) (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, &FileError{File: d.file, Msg: err.Error()}
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, d.errorf(&n, "the file is empty")
	}
	if err := d.check(n.Content[0]); err != nil {
		return nil, err
	}
	if n.Content[0].Kind != yaml.MappingNode {
		return nil, d.errorf(n.Content[0], "want a mapping at the top of the file")
	}
	return n.Content[0], nil
}

var plainTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true,
	"!!null": true, "!!map": true, "!!seq": true, "!!timestamp": true}

// maxDepth bounds how deeply a corpus file nests: ADK's cases nest a few
// levels (arguments inside calls inside contents), and converting a
// deeper tree costs time and memory with the square of its depth.
const maxDepth = 64

// check refuses aliases, anchors, custom tags and nesting deeper than
// maxDepth below n: a corpus file is data, and an alias could make a small
// file expand without bound.
func (d doc) check(n *yaml.Node) error { return d.checkAt(n, 0) }

func (d doc) checkAt(n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return d.errorf(n, "nested more than %d levels deep; a conformance case nests a few", maxDepth)
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return d.errorf(n, "anchors and aliases are not allowed here")
	}
	if !plainTags[n.Tag] {
		return d.errorf(n, "tag %s is not allowed here", n.Tag)
	}
	for _, c := range n.Content {
		if err := d.checkAt(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// fields reads a mapping, refusing keys outside known (known nil: any).
func (d doc) fields(n *yaml.Node, what string, known ...string) (map[string]*yaml.Node, error) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, "%s: want a mapping", what)
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, d.errorf(k, "%s: keys must be plain text", what)
		}
		if _, dup := out[k.Value]; dup {
			return nil, d.errorf(k, "%s: %q is given twice", what, k.Value)
		}
		if known != nil && !contains(known, k.Value) {
			return nil, d.errorf(k, "%s: unknown field %q (known: %v)", what, k.Value, known)
		}
		out[k.Value] = n.Content[i+1]
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (d doc) str(n *yaml.Node, what string) (string, error) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errorf(n, "%s: want text", what)
	}
	return n.Value, nil
}

func (d doc) index(n *yaml.Node, what string) (int, error) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, d.errorf(n, "%s: want a whole number", what)
	}
	i, err := strconv.Atoi(n.Value)
	if err != nil || i < 0 || i > 1<<20 {
		return 0, d.errorf(n, "%s: %q is not an index from 0 to %d", what, n.Value, 1<<20)
	}
	return i, nil
}

func (d doc) list(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n == nil || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errorf(n, "%s: want a list", what)
	}
	return n.Content, nil
}

// plain decodes a node that holds data (arguments, state, responses).
func (d doc) plain(n *yaml.Node, what string) (map[string]any, error) {
	if n == nil || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, "%s: want a mapping", what)
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return nil, d.errorf(n, "%s: %v", what, err)
	}
	return m, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
