package cassettes

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestScannerFindsRarerEncodings: a key echoed as hex, with every byte
// percent-encoded, as \uXXXX per character, in base64 of base64, or in
// base64 of UTF-16 is found by the scanner and scrubbed, inside larger
// text at any alignment.
func TestScannerFindsRarerEncodings(t *testing.T) {
	const secret = "AIzaTEST-rare-forms-0123456789"
	r := NewRedactor(secret)
	var pct, ues strings.Builder
	for i := 0; i < len(secret); i++ {
		fmt.Fprintf(&pct, "%%%02X", secret[i])
	}
	for _, c := range secret {
		fmt.Fprintf(&ues, `\u%04x`, c)
	}
	wide := func(big bool) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(secret)) {
			if big {
				b = binary.BigEndian.AppendUint16(b, u)
			} else {
				b = binary.LittleEndian.AppendUint16(b, u)
			}
		}
		return b
	}
	forms := map[string]string{
		"hex":              "id=" + hex.EncodeToString([]byte(secret)) + ";",
		"HEX":              "id=" + strings.ToUpper(hex.EncodeToString([]byte(secret))),
		"percent per byte": "q=" + pct.String() + "&x=1",
		"percent lower":    "q=" + strings.ToLower(pct.String()),
		`\u per character`: `{"k":"` + ues.String() + `"}`,
	}
	for shift := 0; shift < 3; shift++ {
		pad := strings.Repeat("p", shift)
		inner := base64.StdEncoding.EncodeToString([]byte("Authorization: Bearer " + pad + secret + " end"))
		for shift2 := 0; shift2 < 3; shift2++ {
			outer := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("o", shift2) + "blob:" + inner))
			forms[fmt.Sprintf("base64 of base64 %d/%d", shift, shift2)] = "d=" + outer
		}
		for _, big := range []bool{false, true} {
			blob := append([]byte(pad), wide(big)...)
			forms[fmt.Sprintf("base64 of UTF-16 big=%v shift %d", big, shift)] = "w=" + base64.StdEncoding.EncodeToString(append(blob, 0, 'z'))
		}
	}
	for what, text := range forms {
		if err := r.Scan([]byte(text)); !errors.Is(err, ErrSecretLeak) {
			t.Errorf("%s: the scanner did not find the key in %q", what, text)
		}
		if scrubbed := r.Bytes([]byte(text)); r.Scan(scrubbed) != nil || !strings.Contains(string(scrubbed), Placeholder) {
			t.Errorf("%s: not scrubbed: %q", what, scrubbed)
		}
	}
}
