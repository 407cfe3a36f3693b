// Indented JSON as Python writes it: json.dumps(v, indent=2) and
// pydantic's model_dump_json(indent=2), for the texts ADK's judges read.

package pyjson

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// NewObject is an empty object that keeps its keys in the order they are
// Set.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Set puts key at the end of o (or replaces its value where it is).
func (o *Object) Set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Len is the number of keys of o.
func (o *Object) Len() int { return len(o.keys) }

// Indent writes v with two-space indentation as Python's json.dumps(v,
// indent=2) (ensureASCII true) and pydantic's model_dump_json(indent=2)
// (ensureASCII false) do: each element on its own line, "," ending a line,
// ": " after a key, empty lists and objects as [] and {}; *Object keys in
// their order, map keys sorted; values as Dumps writes them.
func Indent(v any, ensureASCII bool) string {
	st := dumps
	if ensureASCII {
		st = dumpsASCII
	}
	var b strings.Builder
	writeIndented(&b, v, st, 0)
	return b.String()
}

func writeIndented(b *strings.Builder, v any, st style, depth int) {
	newline := func(d int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", d))
	}
	switch x := v.(type) {
	case *Object:
		if x == nil || len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			writeString(b, k, st)
			b.WriteString(": ")
			writeIndented(b, x.vals[k], st, depth+1)
		}
		newline(depth)
		b.WriteByte('}')
	case map[string]any:
		o := NewObject()
		for _, k := range slices.Sorted(maps.Keys(x)) {
			o.Set(k, x[k])
		}
		writeIndented(b, o, st, depth)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			writeIndented(b, e, st, depth+1)
		}
		newline(depth)
		b.WriteByte(']')
	case []string:
		list := make([]any, len(x))
		for i, e := range x {
			list[i] = e
		}
		writeIndented(b, list, st, depth)
	case nil, bool, string, json.Number, float64, int, int64:
		write(b, x, st)
	default:
		// Structs and typed slices: as encoding/json sees them.
		data, err := json.Marshal(x)
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var plain any
		if err != nil || d.Decode(&plain) != nil {
			write(b, x, st)
			return
		}
		writeIndented(b, plain, st, depth)
	}
}
