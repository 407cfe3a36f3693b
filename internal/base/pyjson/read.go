// Reading JSON documents for errors that name the file, line and field
// path, objects' keys kept in file order.

package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// The readers of eval sets and eval configs decode JSON into plain values
// (nil, bool, json.Number, string, []any) and *Object for objects, which
// keeps the keys in file order (criteria are evaluated in that order). A
// duplicated key keeps its first position and its last value, as Python's
// json module does.

type Object struct {
	keys []string
	vals map[string]any
}

// Get is the value of key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Decode reads one JSON document, the file's name kept for errors; a
// syntax error names the line and column.
func Decode(file string, data []byte) (Value, error) {
	v, err := decodeValue(file, data)
	return Value{File: file, V: v}, err
}

func decodeValue(file string, data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = fmt.Errorf("unexpected data after the JSON document")
			if err2 != nil && !errors.Is(err2, io.EOF) {
				err = err2
			}
		}
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// json.Unmarshal reports the offset just after the offending
			// byte; the token reader's offset is less precise.
			var x any
			if err2 := json.Unmarshal(data, &x); errors.As(err2, &se) && se.Offset > 0 {
				se.Offset--
			}
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: invalid JSON: %v", file, line, col, se)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: invalid JSON: unexpected end of file", file)
		}
		line, col := lineCol(data, dec.InputOffset())
		return nil, fmt.Errorf("%s:%d:%d: invalid JSON: %v", file, line, col, err)
	}
	return v, nil
}

func lineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := &Object{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := o.vals[key]; !dup {
				o.keys = append(o.keys, key)
			}
			o.vals[key] = v
		}
		_, err := dec.Token() // }
		return o, err
	case '[':
		list := []any{}
		for dec.More() {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token() // ]
		return list, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// Plain turns decoded values into what encoding/json would give with
// UseNumber: map[string]any for objects.
func Plain(v any) any {
	switch v := v.(type) {
	case *Object:
		m := make(map[string]any, len(v.vals))
		for k, x := range v.vals {
			m[k] = Plain(x)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = Plain(x)
		}
		return out
	}
	return v
}

// Value is a value at a JSON path of a file, for error messages such as
// `home.evalset.json: eval_cases[1].conversation[0].user_content: missing`.
type Value struct {
	File string
	// Path is the JSON path within File ("" at the top).
	Path string
	// V is the value: nil, bool, json.Number, string, []any or *Object.
	V any
}

// At is the field key of n, without its value.
func (n Value) At(key string) Value {
	p := key
	if n.Path != "" {
		p = n.Path + "." + key
	}
	return Value{File: n.File, Path: p}
}

// Index is element i of n, without its value.
func (n Value) Index(i int) Value {
	return Value{File: n.File, Path: n.Path + "[" + strconv.Itoa(i) + "]"}
}

// Errorf is an error naming n's file and path.
func (n Value) Errorf(format string, args ...any) error {
	if n.Path == "" {
		return fmt.Errorf("%s: "+format, append([]any{n.File}, args...)...)
	}
	return fmt.Errorf("%s: %s: "+format, append([]any{n.File, n.Path}, args...)...)
}

// Object reads an object.
func (n Value) Object() (*Object, error) {
	o, ok := n.V.(*Object)
	if !ok {
		return nil, n.Errorf("expected an object, got %s", Describe(n.V))
	}
	return o, nil
}

// List reads a list.
func (n Value) List() ([]any, error) {
	l, ok := n.V.([]any)
	if !ok {
		return nil, n.Errorf("expected a list, got %s", Describe(n.V))
	}
	return l, nil
}

// Str reads a string.
func (n Value) Str() (string, error) {
	s, ok := n.V.(string)
	if !ok {
		return "", n.Errorf("expected a string, got %s", Describe(n.V))
	}
	return s, nil
}

// OptStr reads a string that may be null.
func (n Value) OptStr() (string, error) {
	if n.V == nil {
		return "", nil
	}
	return n.Str()
}

// Number reads a number.
func (n Value) Number() (float64, error) {
	num, ok := n.V.(json.Number)
	if !ok {
		return 0, n.Errorf("expected a number, got %s", Describe(n.V))
	}
	f, err := num.Float64()
	if err != nil {
		return 0, n.Errorf("%s is not a usable number", num)
	}
	return f, nil
}

// Bool reads true or false.
func (n Value) Bool() (bool, error) {
	b, ok := n.V.(bool)
	if !ok {
		return false, n.Errorf("expected true or false, got %s", Describe(n.V))
	}
	return b, nil
}

// Field looks a key up under each of its spellings (pydantic's alias, the
// camelCase one, is tried first, then the field name), returning the Value
// with the spelling found in its path.
func (n Value) Field(o *Object, names ...string) (Value, bool) {
	for _, name := range names {
		if v, ok := o.Get(name); ok {
			c := n.At(name)
			c.V = v
			return c, true
		}
	}
	return n.At(names[0]), false
}

// PyField looks up a snake_case field name as pydantic with
// alias_generator=to_camel and populate_by_name=True does: the camelCase
// alias first, then the name itself.
func (n Value) PyField(o *Object, snake string) (Value, bool) {
	if camel := textfmt.Camel(snake); camel != snake {
		if c, ok := n.Field(o, camel, snake); ok {
			return c, true
		}
	}
	return n.Field(o, snake)
}

// Elem is element i of list, which is n's value.
func (n Value) Elem(list []any, i int) Value {
	c := n.Index(i)
	c.V = list[i]
	return c
}

// Describe names a JSON value for an error message.
func Describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return v.String()
	case string:
		return "the string " + strconv.Quote(textfmt.Truncate(v, 40))
	case []any:
		return "a list"
	case *Object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// CheckKeys rejects keys outside known, listing the known ones.
func (n Value) CheckKeys(o *Object, known ...string) error {
	for _, k := range o.keys {
		found := false
		for _, want := range known {
			if k == want {
				found = true
				break
			}
		}
		if !found {
			sorted := append([]string(nil), known...)
			sort.Strings(sorted)
			return n.At(k).Errorf("unknown key; known keys: %s", strings.Join(sorted, ", "))
		}
	}
	return nil
}

// Keys are the object's keys in file order.
func (o *Object) Keys() []string { return o.keys }

// Required is PyField for a field that must be there and not null; what
// says why it is needed.
func (n Value) Required(o *Object, snake, what string) (Value, error) {
	c, ok := n.PyField(o, snake)
	if !ok || c.V == nil {
		return c, c.Errorf("missing: %s", what)
	}
	return c, nil
}

// CheckPyKeys rejects keys that are neither the snake_case names nor
// their camelCase aliases (pydantic's extra="forbid"), listing the names.
func (n Value) CheckPyKeys(o *Object, snake ...string) error {
	var known []string
	for _, s := range snake {
		known = append(known, s)
		if c := textfmt.Camel(s); c != s {
			known = append(known, c)
		}
	}
	for _, k := range o.keys {
		if !slices.Contains(known, k) {
			sorted := slices.Clone(snake)
			sort.Strings(sorted)
			return n.At(k).Errorf("unknown key; known keys: %s", strings.Join(sorted, ", "))
		}
	}
	return nil
}

// Strings reads a list of strings.
func (n Value) Strings() ([]string, error) {
	list, err := n.List()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(list))
	for i := range list {
		if out[i], err = n.Elem(list, i).Str(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Val is the value of key, nil when absent.
func (o *Object) Val(key string) any { return o.vals[key] }
