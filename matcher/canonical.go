// The canonical form of JSON bodies: parsed with exact numbers, keys
// sorted, numbers normalised, so equal requests are equal bytes.

package matcher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseJSON decodes a body into plain Go values, keeping numbers as
// json.Number so that no precision is lost. ok is false when the body is
// not a single JSON value.
func ParseJSON(body []byte) (v any, ok bool) {
	trimmed := bytes.Trim(body, " \t\r\n") // JSON's white space only
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil, false
	}
	return decodeJSON(trimmed)
}

// AppendCanonical writes v in canonical form: objects with sorted keys,
// arrays in order, numbers normalised and byte fields in one base64
// spelling, so that equal values are equal bytes.
func AppendCanonical(buf []byte, v any) []byte { return appendJSON(buf, v, true) }

// appendJSON writes v with sorted keys; numbers and byte fields are
// normalised when canonical, else written as they were sent (for people
// to read).
func appendJSON(buf []byte, v any, canonical bool) []byte {
	return appendAt(buf, v, canonical, place{})
}

// appendAt is appendJSON for a value at p.
func appendAt(buf []byte, v any, canonical bool, p place) []byte {
	switch t := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, t)
	case json.Number:
		if !canonical {
			return append(buf, t...)
		}
		return append(buf, canonicalNumber(string(t))...)
	case float64: // what encoding/json decodes numbers into without UseNumber
		return appendAt(buf, floatNumber(t), canonical, p)
	case string:
		if canonical && p.holdsBytes() {
			return appendBase64(buf, t)
		}
		return appendJSONString(buf, t)
	case []any:
		buf = append(buf, '[')
		for i, e := range t {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendAt(buf, e, canonical, p.element())
		}
		return append(buf, ']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, k)
			buf = append(buf, ':')
			buf = appendAt(buf, t[k], canonical, p.member(k))
		}
		return append(buf, '}')
	}
	panic(fmt.Sprintf("matcher: unexpected JSON value %T", v))
}

// appendJSONString writes s as a JSON string: quotes, backslashes and
// control characters escaped, everything else (including <, > and &, which
// encoding/json would escape) as is, invalid UTF-8 as U+FFFD, as the JSON
// decoder that produced s would have read it.
func appendJSONString(buf []byte, s string) []byte { return appendQuoted(buf, s) }

// appendQuoted is appendJSONString for a string or its bytes. Runs of
// bytes that need no escape (plain text: nearly all of a body) are copied
// whole; only what must change goes rune by rune, as ranging over the
// string would give it.
func appendQuoted[T string | []byte](buf []byte, s T) []byte {
	buf = append(buf, '"')
	for {
		n := plainPrefix(s)
		buf = append(buf, s[:n]...)
		if s = s[n:]; len(s) == 0 {
			return append(buf, '"')
		}
		// At most UTFMax bytes converted: a small string, made on the stack.
		r, size := utf8.DecodeRuneInString(string(s[:min(utf8.UTFMax, len(s))]))
		buf = appendEscapedRune(buf, r)
		s = s[size:]
	}
}

// plainPrefix is the length of the longest prefix of s that is the same
// bytes inside a JSON string and in its canonical form: valid UTF-8
// without quotes, backslashes or control characters. Plain ASCII is
// checked eight bytes at a time.
func plainPrefix[T string | []byte](s T) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for i < len(s) {
		if i+8 <= len(s) {
			b := s[i : i+8] // one load, no bounds checks
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			quote, backslash := w^(ones*'"'), w^(ones*'\\')
			// Flags a byte below 0x20, a quote or a backslash (XOR zero),
			// and any byte with the high bit; the bytes then go one by one.
			special := (w-ones*0x20)&^w | (quote-ones)&^quote | (backslash-ones)&^backslash | w
			if special&highs == 0 {
				i += 8
				continue
			}
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r == utf8.RuneError && size == 1 {
				return i // invalid UTF-8: U+FFFD in the canonical form
			}
			i += size
			continue
		}
		if c < 0x20 || c == '"' || c == '\\' {
			return i
		}
		i++
	}
	return i
}

// appendEscapedRune writes r as it goes inside a JSON string.
func appendEscapedRune(buf []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		return append(buf, '\\', byte(r))
	case r == '\n':
		return append(buf, '\\', 'n')
	case r == '\r':
		return append(buf, '\\', 'r')
	case r == '\t':
		return append(buf, '\\', 't')
	case r < 0x20:
		return append(buf, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	}
	return utf8.AppendRune(buf, r)
}

// floatNumber is a float64 as the shortest JSON number that reads back as
// it (NaN and infinities, which JSON cannot hold, as null's stand-in 0).
func floatNumber(f float64) json.Number {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "0"
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// asNumber is v as a JSON number, whether it was decoded with UseNumber
// (json.Number) or without (float64).
func asNumber(v any) (json.Number, bool) {
	switch t := v.(type) {
	case json.Number:
		return t, true
	case float64:
		return floatNumber(t), true
	}
	return "", false
}

// canonicalNumber rewrites a JSON number as sign, significant digits and
// exponent ("1.50e2" and "150" both become "15e1"), exactly and without
// going through float64, so large integers stay distinct.
func canonicalNumber(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expPart, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	exp := 0
	if expPart != "" {
		e, err := strconv.Atoi(expPart)
		if err != nil {
			return s // json.Number has been validated; unreachable in practice
		}
		exp = e
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0"
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if exp == 0 {
		return sign + trimmed
	}
	return sign + trimmed + "e" + strconv.Itoa(exp)
}

// numbersEqual reports whether two JSON number literals have the same value.
func numbersEqual(a, b json.Number) bool {
	return canonicalNumber(string(a)) == canonicalNumber(string(b))
}
