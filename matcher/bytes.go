// Byte fields: request fields holding bytes as base64 text (the dialects'
// wire.BytesFields), compared by their bytes whichever alphabet and
// padding each side wrote them in.

package matcher

import "github.com/adkproxy/adkproxy/internal/wire"

// byteKey is one key of byte fields: the keys of the objects it holds
// bytes in (wire.BytesField.In), or any object.
type byteKey struct {
	key string
	in  []string
	any bool
}

// byteKeys are the byte fields by the length of their key, so that the
// check every string member of a body pays is a length and, for a few
// lengths, one comparison.
var byteKeys = func() [][]byteKey {
	var out [][]byteKey
	for _, f := range wire.BytesFields() {
		for len(out) <= len(f.Key) {
			out = append(out, nil)
		}
		keys := out[len(f.Key)]
		i := 0
		for i < len(keys) && keys[i].key != f.Key {
			i++
		}
		if i == len(keys) {
			keys = append(keys, byteKey{key: f.Key})
		}
		if f.In == "" {
			keys[i].any = true
		} else {
			keys[i].in = append(keys[i].in, f.In)
		}
		out[len(f.Key)] = keys
	}
	return out
}()

// isBytes reports whether the string member key of an object under the
// member in ("" at the top) holds bytes.
func isBytes[T string | []byte](in, key T) bool {
	if len(key) >= len(byteKeys) {
		return false
	}
	for _, k := range byteKeys[len(key)] {
		if string(key) != k.key {
			continue
		}
		if k.any {
			return true
		}
		for _, i := range k.in {
			if string(in) == i {
				return true
			}
		}
	}
	return false
}

// place is where a value is in a document, as far as byte fields go: the
// member key it is the value of, the key its object is under, and whether
// it is an array's element rather than a member's value (only a member's
// value holds bytes; an element's objects are under the array's key).
type place struct {
	in, key string
	elem    bool
}

// member is the place of the member key of an object at p.
func (p place) member(key string) place { return place{in: p.key, key: key} }

// element is the place of an element of an array at p.
func (p place) element() place { return place{in: p.in, key: p.key, elem: true} }

// holdsBytes reports whether a string at p is a byte field's value.
func (p place) holdsBytes() bool { return !p.elem && isBytes(p.in, p.key) }

// b64 gives each base64 character its value in either alphabet, and 0xff
// to any other byte.
var b64 = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const std, url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", "-_"
	for i := range len(std) {
		t[std[i]] = byte(i)
	}
	t[url[0]], t[url[1]] = 62, 63
	return t
}()

// appendBase64 writes s, a byte field's value, as a JSON string in its
// canonical spelling: standard base64 with padding, whatever alphabet
// and padding s has, so that equal bytes are equal text. A value that is
// not base64 in either alphabet (strictly: other characters, both
// alphabets, wrong padding, bits past the last byte) is written as it is.
func appendBase64[T string | []byte](dst []byte, s T) []byte {
	pad := 0
	for pad < len(s) && pad < 3 && s[len(s)-1-pad] == '=' {
		pad++
	}
	data := s[:len(s)-pad]
	rest := len(data) % 4
	var std, url bool
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case b64[c] == 0xff:
			return appendQuoted(dst, s)
		case c == '+' || c == '/':
			std = true
		case c == '-' || c == '_':
			url = true
		}
	}
	want := (4 - rest) % 4
	// The bits of the last character past the last byte must be zero.
	var spare byte
	switch rest {
	case 1:
		return appendQuoted(dst, s)
	case 2:
		spare = 0x0f
	case 3:
		spare = 0x03
	}
	if (std && url) || (pad != 0 && pad != want) || (rest > 0 && b64[data[len(data)-1]]&spare != 0) {
		return appendQuoted(dst, s)
	}
	dst = append(dst, '"')
	if !url {
		dst = append(dst, data...)
	} else {
		for i := 0; i < len(data); i++ {
			switch c := data[i]; c {
			case '-':
				dst = append(dst, '+')
			case '_':
				dst = append(dst, '/')
			default:
				dst = append(dst, c)
			}
		}
	}
	for range want {
		dst = append(dst, '=')
	}
	return append(dst, '"')
}

// sameBytes reports whether two byte fields' values hold the same bytes.
func sameBytes(a, b string) bool {
	return string(appendBase64(nil, a)) == string(appendBase64(nil, b))
}
