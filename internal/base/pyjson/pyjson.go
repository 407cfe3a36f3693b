// Package pyjson owns JSON as ADK's Python side reads and writes it. It
// writes decoded values as Python does, for text adkproxy must reproduce
// byte for byte: repr() (the simulated user's history) and json.dumps with
// Python's separators and sorted keys, with or without ensure_ascii
// (scenario ids, ADK's span attributes). And it reads the JSON files ADK
// reads (eval sets, eval configs, scenarios, session inputs) as pydantic
// does, keys in file order, both spellings of a field (snake_case and its
// camelCase alias), with errors that name the file, line and field path.
package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Repr is Python's repr() of the value json.loads gives for a decoded
// JSON value: None, True, False, strings quoted and escaped as Python
// does, numbers as Python's int or float (see reprNumber), lists and dicts
// with ", " and ": ", an *Object's keys in their order (a dict keeps the
// order it was read in), a map's sorted.
func Repr(v any) string {
	var b strings.Builder
	write(&b, v, repr)
	return b.String()
}

// Dumps is Python's json.dumps(v, sort_keys=True) (ensure_ascii as
// given): ", " and ": " separators, map keys sorted (an *Object's in its
// order), "\"", "\\", \n, \r, \t,
// \b and \f escaped, other control characters as \u00XX and, with
// ensureASCII, every non-ASCII character as \uXXXX (UTF-16 surrogate pairs
// beyond the BMP).
func Dumps(v any, ensureASCII bool) string {
	var b strings.Builder
	style := dumps
	if ensureASCII {
		style = dumpsASCII
	}
	write(&b, v, style)
	return b.String()
}

type style int

const (
	repr style = iota
	dumps
	dumpsASCII
)

// write writes v: nil, bool, string, json.Number (as written), float64
// and ints (an integral float as Python's int, since it was one in the
// JSON), []any, []string and map[string]any. Anything else goes through
// encoding/json first.
func write(b *strings.Builder, v any, st style) {
	switch x := v.(type) {
	case nil:
		b.WriteString(pick(st, "None", "null"))
	case bool:
		if x {
			b.WriteString(pick(st, "True", "true"))
		} else {
			b.WriteString(pick(st, "False", "false"))
		}
	case string:
		writeString(b, x, st)
	case json.Number:
		if st == repr {
			b.WriteString(reprNumber(x))
		} else {
			b.WriteString(x.String())
		}
	case float64:
		b.WriteString(Float(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case []string:
		list := make([]any, len(x))
		for i, e := range x {
			list[i] = e
		}
		write(b, list, st)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e, st)
		}
		b.WriteByte(']')
	case *Object:
		if x == nil {
			b.WriteString(pick(st, "None", "null"))
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, k, st)
			b.WriteString(": ")
			write(b, x.vals[k], st)
		}
		b.WriteByte('}')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, k, st)
			b.WriteString(": ")
			write(b, x[k], st)
		}
		b.WriteByte('}')
	default:
		data, err := json.Marshal(x)
		if err != nil {
			fmt.Fprint(b, x)
			return
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var plain any
		if d.Decode(&plain) != nil {
			fmt.Fprint(b, x)
			return
		}
		write(b, plain, st)
	}
}

func pick(st style, python, json string) string {
	if st == repr {
		return python
	}
	return json
}

// Float is Python's repr of a float that came from JSON: an integral
// value (below 1e16) as the int it was written as, others in the shortest
// form that reads back, fixed-point from 1e-4 up to 1e16, else with an
// exponent of at least two digits; json.dumps's Infinity and NaN.
func Float(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == math.Trunc(x) && math.Abs(x) < 1e16:
		return strconv.FormatInt(int64(x), 10)
	}
	if a := math.Abs(x); a >= 1e-4 && a < 1e16 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'e', -1, 64)
}

func writeString(b *strings.Builder, s string, st style) {
	if st == repr {
		writeReprString(b, s)
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20, st == dumpsASCII && r > 0x7e && r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		case st == dumpsASCII && r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// reprNumber is Python's repr of json.loads(n): an integer literal is an
// int, written as is (Python's ints have no bound) but "-0" as 0; any
// other is a float, written as repr(float) does — the shortest digits
// that read back, ".0" on an integral value, an exponent below 1e-4 and
// from 1e16 up, inf beyond float range.
func reprNumber(n json.Number) string {
	lit := n.String()
	if !strings.ContainsAny(lit, ".eE") {
		if strings.TrimLeft(lit, "-0") == "" {
			return "0"
		}
		return lit
	}
	x, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(x, 0) {
		return lit
	}
	return reprFloat(x)
}

// reprFloat is Python's repr of a float.
func reprFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	if a := math.Abs(x); a == 0 || a >= 1e-4 && a < 1e16 {
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	return strconv.FormatFloat(x, 'e', -1, 64)
}

// writeReprString is Python's repr of a str: single quotes unless the
// text holds a single quote and no double quote; the quote and backslash
// escaped, \n, \r and \t, and every other character Python does not
// count printable (controls, format characters, separators but the space,
// unassigned code points) as \xhh, \uhhhh or \Uhhhhhhhh.
func writeReprString(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
}
