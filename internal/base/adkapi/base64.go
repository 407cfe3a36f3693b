package adkapi

import (
	"encoding/json"
	"strings"
)

// ADK for Python writes the byte fields of its events (thoughtSignature,
// inlineData.data, ...) in the URL-safe base64 alphabet, often unpadded,
// while encoding/json reads []byte in the standard one only. stdBase64JSON
// rewrites every string under a byte-valued key to the standard alphabet so
// that either one decodes.

// byteKeys are the genai fields that hold bytes, by JSON name.
var byteKeys = map[string]bool{"thoughtSignature": true, "data": true, "thought_signature": true}

// stdBase64JSON returns b with URL-safe base64 in byte fields rewritten to
// the standard alphabet, or b itself when it is not JSON.
func stdBase64JSON(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, err := json.Marshal(stdBase64Value(v, false))
	if err != nil {
		return b
	}
	return out
}

func stdBase64Value(v any, bytesField bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = stdBase64Value(x, byteKeys[k])
		}
	case []any:
		for i, x := range t {
			t[i] = stdBase64Value(x, false)
		}
	case string:
		if bytesField {
			return stdBase64(t)
		}
	}
	return v
}

// stdBase64 turns URL-safe base64 into standard, padded base64; standard
// base64 comes back unchanged.
func stdBase64(s string) string {
	if !strings.ContainsAny(s, "-_") && len(s)%4 == 0 {
		return s
	}
	s = strings.NewReplacer("-", "+", "_", "/").Replace(strings.TrimRight(s, "="))
	if n := len(s) % 4; n != 0 {
		s += strings.Repeat("=", 4-n)
	}
	return s
}
