// A yaml.Node tree written as JSON in the node's own key order, so a
// converted request keeps the order ADK built it in.

package conformance

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"gopkg.in/yaml.v3"
)

// writeJSON writes n as compact JSON.
func (d doc) writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, n.Content[i].Value)
			b.WriteByte(':')
			if err := d.writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := d.writeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		return d.writeScalar(b, n)
	default:
		return d.errorf(n, "cannot be written as JSON")
	}
	return nil
}

func (d doc) writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Tag {
	case "!!null":
		b.WriteString("null")
	case "!!bool":
		var v bool
		if err := n.Decode(&v); err != nil {
			return d.errorf(n, "%v", err)
		}
		b.WriteString(strconv.FormatBool(v))
	case "!!int":
		var v int64
		if err := n.Decode(&v); err != nil {
			return d.errorf(n, "%v", err)
		}
		b.WriteString(strconv.FormatInt(v, 10))
	case "!!float":
		var v float64
		if err := n.Decode(&v); err != nil {
			return d.errorf(n, "%v", err)
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return d.errorf(n, "%s has no JSON form", n.Value)
		}
		out, _ := json.Marshal(v)
		b.Write(out)
	default:
		writeString(b, n.Value)
	}
	return nil
}

// writeString writes s as a JSON string the way Python's json.dumps with
// ensure_ascii=False does.
func writeString(b *bytes.Buffer, s string) {
	b.WriteString(pyjson.Dumps(s, false))
}

// jsonNode parses JSON into a node tree that keeps the key order.
func (d doc) jsonNode(data []byte) (*yaml.Node, error) {
	if !json.Valid(data) {
		return nil, d.errorf(nil, "not valid JSON")
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil || len(n.Content) != 1 {
		return nil, d.errorf(nil, "JSON the YAML reader cannot take: %v", err)
	}
	return plainStyle(n.Content[0]), nil
}

// plainStyle drops the quoting JSON came with, so YAML written from the
// tree quotes only what needs it.
func plainStyle(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.ScalarNode {
		n.Style = 0
	}
	for _, c := range n.Content {
		plainStyle(c)
	}
	return n
}
