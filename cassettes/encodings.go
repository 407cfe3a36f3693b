// The rarer ways a secret can be spelled in stored bytes, beyond those
// encodedForms lists: hex, every byte percent-encoded, every character as
// a JSON \uXXXX escape, base64 of base64, and UTF-16 (as is or in base64).

package cassettes

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf16"
)

// transformedForms lists those spellings of v, each in the letter cases
// encoders use.
func transformedForms(v string) []string {
	var out []string
	h := hex.EncodeToString([]byte(v))
	out = append(out, h, strings.ToUpper(h))
	var pct, pctLower, uesc, uescUpper strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&pct, "%%%02X", v[i])
		fmt.Fprintf(&pctLower, "%%%02x", v[i])
	}
	for _, r := range utf16.Encode([]rune(v)) {
		fmt.Fprintf(&uesc, `\u%04x`, r)
		fmt.Fprintf(&uescUpper, `\u%04X`, r)
	}
	out = append(out, pct.String(), pctLower.String(), uesc.String(), uescUpper.String())
	encodings := []*base64.Encoding{base64.StdEncoding, base64.URLEncoding}
	// Base64 of base64 in one alphabet (an encoder re-encoding its own
	// output): each form bounds the scrubbing's cost, so mixed alphabets
	// are left out.
	for _, e := range encodings {
		for shift := 0; shift < 3; shift++ {
			inner := alignedBase64(e, v, shift)
			for shift2 := 0; shift2 < 3; shift2++ {
				if f := alignedBase64(e, inner, shift2); len(f) >= minLearned {
					out = append(out, f)
				}
			}
		}
	}
	for _, wide := range []string{utf16Bytes(v, false), utf16Bytes(v, true)} {
		out = append(out, wide)
		for _, e := range encodings {
			for shift := 0; shift < 3; shift++ {
				if f := alignedBase64(e, wide, shift); len(f) >= minLearned {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// utf16Bytes is v in UTF-16, little- or big-endian, without a BOM.
func utf16Bytes(v string, bigEndian bool) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(v)) {
		if bigEndian {
			b.WriteByte(byte(u >> 8))
			b.WriteByte(byte(u))
		} else {
			b.WriteByte(byte(u))
			b.WriteByte(byte(u >> 8))
		}
	}
	return b.String()
}
