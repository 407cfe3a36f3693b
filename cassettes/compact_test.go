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

// FuzzRawElements: the elements found in one pass are those json.Unmarshal
// puts in a []json.RawMessage field, whenever the one pass answers.
func FuzzRawElements(f *testing.F) {
	for _, s := range []string{`{"contents":[{"role":"user"}, [1,2], "x", null]}`, `{"Contents":[1],"contents":[2, 3 ]}`, `{"contents":null}`,
		`{"contents":{"a":1}}`, `{"contents":"x"}`, `{"a":[1],"b":{"contents":[9]}}`, `{"cont\u0065nts":[1]}`, `[1]`, `null`, `{"CONTENTS":[]}`,
		`{"contentſ":[1]}`, `{"contents":[1],}`, ` {"contents" : [ 1 , {"b":[2]} ] } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := rawElements(body, "contents")
		if !ok {
			return
		}
		var req struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("%q: one pass read %q; encoding/json: %v", body, got, err)
		}
		if len(got) != len(req.Contents) {
			t.Fatalf("%q: %q, encoding/json %q", body, got, req.Contents)
		}
		for i := range got {
			if !bytes.Equal(got[i], req.Contents[i]) {
				t.Fatalf("%q: element %d %q, encoding/json %q", body, i, got[i], req.Contents[i])
			}
		}
	})
}

// TestRawElementsAnswers: the plain cases are answered in one pass, and
// what encoding/json must judge is handed back.
func TestRawElementsAnswers(t *testing.T) {
	for body, want := range map[string]bool{`{"contents":[1,{"a":[2]}]}`: true, `{"Contents":null}`: true, `{"other":1}`: true,
		`{"contents":{}}`: false, `{"cont\u0065nts":[]}`: false, `[1]`: false, `{"contents":[1]`: false} {
		if _, ok := rawElements([]byte(body), "contents"); ok != want {
			t.Errorf("%s: answered %v, want %v", body, ok, want)
		}
	}
	if got, _ := rawElements([]byte(`{"contents":[1, {"a":[2]} ,"x"]}`), "contents"); len(got) != 3 || string(got[1]) != `{"a":[2]}` {
		t.Errorf("elements %q", got)
	}
}
