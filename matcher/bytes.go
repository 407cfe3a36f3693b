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

// b64 gives each base64 character its value in either alphabet;
// b64class says which alphabet it is of: both (letters and digits),
// standard only ('+', '/'), URL-safe only ('-', '_') or neither; toStd
// spells a URL-safe character in the standard alphabet.
var b64, b64class, toStd = func() (value, class, std [256]byte) {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range class {
		class[i], std[i] = notBase64, byte(i)
	}
	for i := range len(chars) {
		value[chars[i]], class[chars[i]] = byte(i), 0
	}
	class['+'], class['/'] = stdOnly, stdOnly
	value['-'], value['_'], class['-'], class['_'] = 62, 63, urlOnly, urlOnly
	std['-'], std['_'] = '+', '/'
	return value, class, std
}()

const (
	stdOnly   = 1
	urlOnly   = 2
	notBase64 = 4
)

// appendBase64 writes s, a byte field's value, as a JSON string in its
// canonical spelling: standard base64 with padding, whatever alphabet
// and padding s has, so that equal bytes are equal text. A value that is
// not base64 in either alphabet (strictly: other characters, both
// alphabets, wrong padding, bits past the last byte) is written as it is.
// It reads a byte at a time without branching: an image's megabytes go
// through it.
func appendBase64[T string | []byte](dst []byte, s T) []byte {
	pad := 0
	for pad < len(s) && pad < 3 && s[len(s)-1-pad] == '=' {
		pad++
	}
	data := s[:len(s)-pad]
	var class byte
	i := 0
	for ; i+8 <= len(data); i += 8 {
		d := data[i : i+8]
		class |= b64class[d[0]] | b64class[d[1]] | b64class[d[2]] | b64class[d[3]] |
			b64class[d[4]] | b64class[d[5]] | b64class[d[6]] | b64class[d[7]]
	}
	for ; i < len(data); i++ {
		class |= b64class[data[i]]
	}
	rest := len(data) % 4
	want := (4 - rest) % 4
	// The bits of the last character past the last byte must be zero.
	spare := [4]byte{0, 0, 0x0f, 0x03}[rest]
	if rest == 1 || class&notBase64 != 0 || class == stdOnly|urlOnly || (pad != 0 && pad != want) ||
		(rest > 0 && b64[data[len(data)-1]]&spare != 0) {
		return appendQuoted(dst, s)
	}
	dst = append(dst, '"')
	start := len(dst)
	dst = append(dst, data...)
	if class&urlOnly != 0 {
		out := dst[start:]
		for i := range out {
			out[i] = toStd[out[i]]
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
