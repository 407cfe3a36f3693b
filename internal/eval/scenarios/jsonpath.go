// Reading decoded JSON values with the file and field path every error
// names, and pydantic's two spellings of a field (snake_case, camelCase).

package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/textfmt"
)

// value is a decoded JSON value and where it sits: file and field path.
type value struct {
	file string
	path string
	v    any
}

// decode reads one JSON document (numbers kept as json.Number).
func decode(file string, data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return value{}, fmt.Errorf("%s: not valid JSON: %v", file, err)
	}
	if dec.More() {
		return value{}, fmt.Errorf("%s: not valid JSON: more than one value", file)
	}
	return value{file: file, v: v}, nil
}

func (x value) errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if x.path == "" {
		return fmt.Errorf("%s: %s", x.file, msg)
	}
	return fmt.Errorf("%s: %s: %s", x.file, x.path, msg)
}

func (x value) at(key string) value {
	p := key
	if x.path != "" {
		p = x.path + "." + key
	}
	return value{file: x.file, path: p}
}

func (x value) object() (map[string]any, error) {
	o, ok := x.v.(map[string]any)
	if !ok {
		return nil, x.errorf("want an object, got %s", kind(x.v))
	}
	return o, nil
}

func (x value) list() ([]value, error) {
	l, ok := x.v.([]any)
	if !ok {
		return nil, x.errorf("want a list, got %s", kind(x.v))
	}
	out := make([]value, len(l))
	for i, v := range l {
		out[i] = value{file: x.file, path: x.path + "[" + strconv.Itoa(i) + "]", v: v}
	}
	return out, nil
}

func (x value) str() (string, error) {
	s, ok := x.v.(string)
	if !ok {
		return "", x.errorf("want a string, got %s", kind(x.v))
	}
	return s, nil
}

func (x value) strings() ([]string, error) {
	items, err := x.list()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = it.str(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// field finds key under its exact spelling only.
func (x value) field(o map[string]any, key string) (value, bool) {
	c := x.at(key)
	v, ok := o[key]
	c.v = v
	return c, ok && v != nil
}

// pyField finds a snake_case field as pydantic with alias_generator=to_camel
// and populate_by_name=True does: the camelCase alias first, then the name.
func (x value) pyField(o map[string]any, snake string) (value, bool) {
	if camel := textfmt.Camel(snake); camel != snake {
		if c, ok := x.field(o, camel); ok {
			return c, true
		}
	}
	return x.field(o, snake)
}

// required is pyField for a field that must be there.
func (x value) required(o map[string]any, snake, what string) (value, error) {
	c, ok := x.pyField(o, snake)
	if !ok {
		return c, c.errorf("missing: %s", what)
	}
	return c, nil
}

// onlyKeys rejects keys that are not the snake_case names or their
// camelCase aliases (pydantic's extra="forbid").
func (x value) onlyKeys(o map[string]any, snake ...string) error {
	var known []string
	for _, s := range snake {
		known = append(known, s)
		if c := textfmt.Camel(s); c != s {
			known = append(known, c)
		}
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return x.at(k).errorf("unknown key; known keys: %s", strings.Join(snake, ", "))
		}
	}
	return nil
}

func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return "the number " + v.String()
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
