package cassettes

import (
	"testing"
	"unicode/utf8"
)

// literalTextByRune is literalText one character at a time.
func literalTextByRune(b []byte) bool {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r < 0x80 && !(r >= 0x20 && r < 0x7f || r == '\t') {
			return false
		}
		if r >= 0x80 && (r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff || !yamlReadable(r, size)) {
			return false
		}
		i += size
	}
	return true
}

// TestLiteralTextEveryByteEverywhere: the eight-bytes-at-a-time check
// agrees with reading character by character, for every byte value at
// every place of a line, alone and beside a low or high neighbour.
func TestLiteralTextEveryByteEverywhere(t *testing.T) {
	for _, fill := range []byte{'a', ' ', '~', 0x20} {
		for _, neighbour := range []byte{0, 0x1f, 0x20, 0x7f, 0xc3} {
			for pos := 0; pos < 19; pos++ {
				for c := 0; c < 256; c++ {
					b := make([]byte, 19)
					for i := range b {
						b[i] = fill
					}
					b[pos] = byte(c)
					if pos+1 < len(b) && neighbour != 0 {
						b[pos+1] = neighbour
					}
					if got, want := literalText(b), literalTextByRune(b); got != want {
						t.Fatalf("literalText(%q) = %v, want %v", b, got, want)
					}
				}
			}
		}
	}
}
