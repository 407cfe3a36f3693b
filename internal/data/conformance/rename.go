// Field names between ADK's recordings and the Gemini wire: the same
// genai types, snake_case in ADK Python's YAML dumps and camelCase in
// JSON. The genai Go types say which keys are fields (renamed) and which
// are data (function arguments, responses, schema properties: kept).

package conformance

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"gopkg.in/yaml.v3"
)

// direction of a renaming.
type direction int

const (
	toWire direction = iota // snake_case YAML → camelCase JSON
	toADK                   // camelCase JSON → snake_case YAML
)

var (
	bytesType = reflect.TypeOf([]byte(nil))
	timeType  = reflect.TypeOf(time.Time{})
)

// jsonName is a struct field's JSON name, or "" for a field JSON skips.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// rename copies n with the field names of type t turned the way dir says,
// and bytes fields re-encoded (ADK Python writes URL-safe base64, the wire
// carries standard base64). A key that is no field of t is an error.
func (d doc) rename(n *yaml.Node, t reflect.Type, dir direction, what string) (*yaml.Node, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return copyNode(n), nil
	}
	switch {
	case t == bytesType:
		return d.rebase64(n, dir, what)
	case t == timeType:
		return copyNode(n), nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil, d.errorf(n, "%s: want a mapping", what)
		}
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			f, ok := fieldOf(t, k.Value, dir)
			if !ok {
				return nil, d.errorf(k, "%s: %q is not a field of %s", what, k.Value, t.Name())
			}
			v, err := d.rename(n.Content[i+1], f.Type, dir, what+"."+k.Value)
			if err != nil {
				return nil, err
			}
			name := jsonName(f)
			if dir == toADK {
				name = textfmt.Snake(name)
			}
			out.Content = append(out.Content, keyNode(name, k.Line), v)
		}
		return out, nil
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil, d.errorf(n, "%s: want a list", what)
		}
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: n.Line, Column: n.Column}
		for i, c := range n.Content {
			v, err := d.rename(c, t.Elem(), dir, fmt.Sprintf("%s[%d]", what, i))
			if err != nil {
				return nil, err
			}
			out.Content = append(out.Content, v)
		}
		return out, nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil, d.errorf(n, "%s: want a mapping", what)
		}
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := d.rename(n.Content[i+1], t.Elem(), dir, what+"."+n.Content[i].Value)
			if err != nil {
				return nil, err
			}
			out.Content = append(out.Content, copyNode(n.Content[i]), v)
		}
		return out, nil
	case reflect.Interface:
		return copyNode(n), nil // data: kept as it is
	}
	if n.Kind != yaml.ScalarNode {
		return nil, d.errorf(n, "%s: want a single value", what)
	}
	return copyNode(n), nil
}

// fieldOf finds the field a key names: by its JSON name, turned to
// snake_case when reading ADK's YAML (a camelCase key is accepted too:
// ADK's pydantic models take either).
func fieldOf(t reflect.Type, key string, dir direction) (reflect.StructField, bool) {
	want := key
	if dir == toWire {
		want = textfmt.Camel(key)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if name := jsonName(f); name != "" && (name == want || name == key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func (d doc) rebase64(n *yaml.Node, dir direction, what string) (*yaml.Node, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, d.errorf(n, "%s: want base64 text", what)
	}
	raw, err := decodeBase64(n.Value)
	if err != nil {
		return nil, d.errorf(n, "%s: not base64: %v", what, err)
	}
	enc := base64.StdEncoding
	if dir == toADK {
		enc = base64.URLEncoding
	}
	out := copyNode(n)
	out.Value, out.Tag, out.Style = enc.EncodeToString(raw), "!!str", 0
	return out, nil
}

// decodeBase64 reads standard or URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "+/") {
		return base64.RawStdEncoding.DecodeString(s)
	}
	return base64.RawURLEncoding.DecodeString(s)
}

func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			c.Content[i] = copyNode(x)
		}
	}
	return &c
}

func keyNode(s string, line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: line}
}
