package cassettes

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCompactMatchesEncodingJSON: the one-pass compactor gives
// json.Compact's bytes, and its error, on any input.
func FuzzCompactMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"{\n  \"a\": [1, 2.5e-3, -0, true, false, null],\n  \"b\": \"x\\u00e9\\n\\\"\"\n}\n", "[]", " { } ", "01", "-", "1.", "1e", "\"\x01\"", "\"\\x\"",
		"{\"a\" 1}", "[1,]", "\"\xff\"", "{\"a\":{\"b\":[[[]]]}}", "tru", "nul", "1 2", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var want, got bytes.Buffer
		werr := json.Compact(&want, src)
		gerr := compactJSON(&got, src)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%q: error %v, encoding/json says %v", src, gerr, werr)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%q: %q, encoding/json gives %q", src, got.Bytes(), want.Bytes())
		}
		c := compactor{src: src}
		if fast := c.value(0) && c.skipSpace() == len(src); fast != (werr == nil) {
			t.Fatalf("%q: the one pass says valid=%v, encoding/json %v", src, fast, werr)
		}
	})
}
