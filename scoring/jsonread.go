// Reading eval set and eval config JSON: key order kept, and every error
// naming the file, line and JSON path.

package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/textfmt"
)

// The readers of eval sets and eval configs decode JSON into plain values
// (nil, bool, json.Number, string, []any) and *object for objects, which
// keeps the keys in file order (criteria are evaluated in that order). A
// duplicated key keeps its first position and its last value, as Python's
// json module does.

type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// decodeJSON reads one JSON document; errors name the file and the line
// and column.
func decodeJSON(file string, data []byte) (any, error) {
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
		o := &object{vals: map[string]any{}}
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

// plain turns decoded values into what encoding/json would give with
// UseNumber: map[string]any for objects.
func plain(v any) any {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.vals))
		for k, x := range v.vals {
			m[k] = plain(x)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

// node is a value at a JSON path of a file, for error messages such as
// `home.evalset.json: eval_cases[1].conversation[0].user_content: missing`.
type node struct {
	file string
	path string
	v    any
}

func (n node) at(key string) node {
	p := key
	if n.path != "" {
		p = n.path + "." + key
	}
	return node{file: n.file, path: p}
}

func (n node) index(i int) node {
	return node{file: n.file, path: n.path + "[" + strconv.Itoa(i) + "]"}
}

func (n node) errorf(format string, args ...any) error {
	if n.path == "" {
		return fmt.Errorf("%s: "+format, append([]any{n.file}, args...)...)
	}
	return fmt.Errorf("%s: %s: "+format, append([]any{n.file, n.path}, args...)...)
}

func (n node) object() (*object, error) {
	o, ok := n.v.(*object)
	if !ok {
		return nil, n.errorf("expected an object, got %s", describe(n.v))
	}
	return o, nil
}

func (n node) list() ([]any, error) {
	l, ok := n.v.([]any)
	if !ok {
		return nil, n.errorf("expected a list, got %s", describe(n.v))
	}
	return l, nil
}

func (n node) str() (string, error) {
	s, ok := n.v.(string)
	if !ok {
		return "", n.errorf("expected a string, got %s", describe(n.v))
	}
	return s, nil
}

// optStr reads a string that may be null.
func (n node) optStr() (string, error) {
	if n.v == nil {
		return "", nil
	}
	return n.str()
}

func (n node) number() (float64, error) {
	num, ok := n.v.(json.Number)
	if !ok {
		return 0, n.errorf("expected a number, got %s", describe(n.v))
	}
	f, err := num.Float64()
	if err != nil {
		return 0, n.errorf("%s is not a usable number", num)
	}
	return f, nil
}

func (n node) boolean() (bool, error) {
	b, ok := n.v.(bool)
	if !ok {
		return false, n.errorf("expected true or false, got %s", describe(n.v))
	}
	return b, nil
}

// field looks a key up under each of its spellings (pydantic's alias, the
// camelCase one, is tried first, then the field name), returning the node
// with the spelling found in its path.
func (n node) field(o *object, names ...string) (node, bool) {
	for _, name := range names {
		if v, ok := o.get(name); ok {
			c := n.at(name)
			c.v = v
			return c, true
		}
	}
	return n.at(names[0]), false
}

// pyField looks up a snake_case field name as pydantic with
// alias_generator=to_camel and populate_by_name=True does: the camelCase
// alias first, then the name itself.
func (n node) pyField(o *object, snake string) (node, bool) {
	if camel := textfmt.Camel(snake); camel != snake {
		if c, ok := n.field(o, camel, snake); ok {
			return c, true
		}
	}
	return n.field(o, snake)
}

func (n node) elem(list []any, i int) node {
	c := n.index(i)
	c.v = list[i]
	return c
}

// describe names a JSON value for an error message.
func describe(v any) string {
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
	case *object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// checkKeys rejects keys outside known, listing the known ones.
func (n node) checkKeys(o *object, known ...string) error {
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
			return n.at(k).errorf("unknown key; known keys: %s", strings.Join(sorted, ", "))
		}
	}
	return nil
}
