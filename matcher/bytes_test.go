package matcher

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// sig are bytes whose base64 differs between the alphabets in several
// places and needs padding: "+//++w==" standard, "-__--w" URL-safe raw.
var sig = []byte{0xfb, 0xff, 0xfe, 0xfb}

// spellings of sig in every alphabet and padding a client may send.
var sigSpellings = map[string]string{
	"standard":         base64.StdEncoding.EncodeToString(sig),
	"standard raw":     base64.RawStdEncoding.EncodeToString(sig),
	"URL-safe":         base64.URLEncoding.EncodeToString(sig),
	"URL-safe raw":     base64.RawURLEncoding.EncodeToString(sig),
	"standard escaped": strings.ReplaceAll(base64.StdEncoding.EncodeToString(sig), "/", `\/`),
}

// byteBodies puts a value at each byte field of a generateContent request:
// a part's thoughtSignature, a part's inline data, inline data inside a
// function response's parts, and the system instruction's inline data.
var byteBodies = map[string]string{
	"thoughtSignature": `{"contents":[{"role":"user","parts":[{"text":"add"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"sum","args":{"a":2}},"thoughtSignature":"V"}]}]}`,
	"inlineData": `{"contents":[{"role":"user","parts":[{"text":"look"},{"inlineData":{"mimeType":"image/png","data":"V"}}]}]}`,
	"functionResponse parts": `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"snap","response":{},` +
		`"parts":[{"inlineData":{"mimeType":"image/png","data":"V"}}]}}]}]}`,
	"systemInstruction": `{"systemInstruction":{"parts":[{"inlineData":{"mimeType":"text/plain","data":"V"}}]},"contents":[]}`,
}

func withValue(body, v string) *cassettes.Request {
	return &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(strings.Replace(body, `"V"`, `"`+v+`"`, 1))}
}

// byName is a matcher whose ignore path selects by name, so its bodies
// are canonicalised through the tree rather than by the scanner.
func byName(t *testing.T) *Matcher {
	t.Helper()
	m, err := New("tools[*].functionDeclarations[nothing].description")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameRequest asserts that every way the matcher compares two requests
// calls them equal: fingerprints (by the scanner and through the tree),
// the body read once, the canonical form and the diff.
func sameRequest(t *testing.T, a, b *cassettes.Request) {
	t.Helper()
	for _, m := range []*Matcher{Default(), byName(t)} {
		if m.Fingerprint(a) != m.Fingerprint(b) {
			t.Errorf("fingerprints differ (byName %v):\n%s\n%s", m.byName, a.Body, b.Body)
		}
		if d := m.Diff(a, b); len(d) != 0 {
			t.Errorf("differences (byName %v): %v", m.byName, d)
		}
		ra, _ := m.ReadBody(a.Body)
		rb, _ := m.ReadBody(b.Body)
		if !bytes.Equal(ra.Canonical(), rb.Canonical()) {
			t.Errorf("read bodies differ: %s vs %s", ra.Canonical(), rb.Canonical())
		}
		checkObject(t, m, a.Body)
		checkObject(t, m, b.Body)
	}
	va, _ := ParseJSON(a.Body)
	vb, _ := ParseJSON(b.Body)
	if !bytes.Equal(AppendCanonical(nil, va), AppendCanonical(nil, vb)) {
		t.Errorf("canonical forms differ:\n%s\n%s", AppendCanonical(nil, va), AppendCanonical(nil, vb))
	}
	if d := DiffJSON("", va, vb); len(d) != 0 {
		t.Errorf("DiffJSON: %v", d)
	}
}

// otherRequest asserts that the matcher tells two requests apart, naming
// path in the diff with both values as they were written.
func otherRequest(t *testing.T, a, b *cassettes.Request, path string) {
	t.Helper()
	for _, m := range []*Matcher{Default(), byName(t)} {
		if m.Fingerprint(a) == m.Fingerprint(b) {
			t.Errorf("fingerprints equal (byName %v):\n%s\n%s", m.byName, a.Body, b.Body)
		}
		d := m.Diff(a, b)
		if len(d) != 1 || d[0].Path != path || d[0].Kind != Changed {
			t.Errorf("differences %v, want one change at %s", d, path)
		}
	}
}

// TestByteFieldsCompareByBytes: a byte field written in the standard or
// the URL-safe base64 alphabet, padded or not, matches any other spelling
// of the same bytes, wherever the field is in the request.
func TestByteFieldsCompareByBytes(t *testing.T) {
	for field, body := range byteBodies {
		for an, a := range sigSpellings {
			for bn, b := range sigSpellings {
				t.Run(field+"/"+an+" vs "+bn, func(t *testing.T) {
					sameRequest(t, withValue(body, a), withValue(body, b))
				})
			}
		}
	}
}

// TestByteFieldsWithOtherBytesDiffer: other bytes are a mismatch, in
// either alphabet, the diff naming the field and showing both values as
// sent.
func TestByteFieldsWithOtherBytesDiffer(t *testing.T) {
	other := append(bytes.Clone(sig), 0)
	paths := map[string]string{
		"thoughtSignature":       "contents[1].parts[sum].thoughtSignature",
		"inlineData":             "contents[0].parts[1].inlineData.data",
		"functionResponse parts": "contents[0].parts[snap].functionResponse.parts[0].inlineData.data",
		"systemInstruction":      "systemInstruction.parts[0].inlineData.data",
	}
	for field, body := range byteBodies {
		a := withValue(body, base64.StdEncoding.EncodeToString(sig))
		b := withValue(body, base64.RawURLEncoding.EncodeToString(other))
		otherRequest(t, a, b, paths[field])
		d := Default().Diff(a, b)
		if want := `recorded "+//++w==", got "-__--wA"`; len(d) == 1 && !strings.Contains(d[0].String(), want) {
			t.Errorf("%s: %s, want the values as sent (%s)", field, d[0], want)
		}
	}
}

// TestByteFieldsThatAreNotBase64CompareAsWritten: a value that is not
// base64 in either alphabet (a character of neither, both alphabets mixed,
// wrong padding, bits past the last byte, a line break) is compared as
// written; so is the same text where the request holds no bytes.
func TestByteFieldsThatAreNotBase64CompareAsWritten(t *testing.T) {
	body := byteBodies["thoughtSignature"]
	const path = "contents[1].parts[sum].thoughtSignature"
	for _, c := range [][2]string{
		{"+//++w==", "+//++w=="[:7]},    // one = of two
		{"ab$d", "ab$d=="},              // not base64: padding is text then
		{"a+b_", "a-b/"},                // mixed alphabets
		{"QQ==", "QR=="},                // the second has bits past its one byte
		{"+//++w==", "+//+\n+w=="},      // a line break
		{"+//++w==", "+//++w==="},       // three =
		{"+//++w==", "+//++"},           // five characters: not a length base64 has
		{"+//++w==", "+//++w==" + "AA"}, // data after the padding
	} {
		a, b := withValue(body, c[0]), withValue(body, strings.ReplaceAll(c[1], "\n", `\n`))
		otherRequest(t, a, b, path)
	}
	for _, v := range []string{"ab$d", "a+b_", "QR==", "+//+\\n+w=="} {
		sameRequest(t, withValue(body, v), withValue(body, v))
	}
	// "data" outside inlineData is the client's own, compared as written.
	args := `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"put","args":{"data":"V"}}}]}]}`
	otherRequest(t, withValue(args, "+//++w=="), withValue(args, "-__--w=="), "contents[0].parts[put].functionCall.args.data")
}

// TestCanonicalBase64: the canonical spelling of a byte field's value is
// standard base64 with padding, and a value that is not base64 is itself.
func TestCanonicalBase64(t *testing.T) {
	for in, want := range map[string]string{
		"":           "",
		"-__--w":     "+//++w==",
		"-__--w==":   "+//++w==",
		"+//++w":     "+//++w==",
		"+//++w==":   "+//++w==",
		"QUJD":       "QUJD",
		"QUI":        "QUI=",
		"QUI=":       "QUI=",
		"QR==":       "QR==", // not strict base64: as written
		"a+b_":       "a+b_",
		"Q":          "Q",
		"QUJD\u00e9": "QUJD\u00e9",
	} {
		if got := string(appendBase64(nil, in)); got != `"`+want+`"` {
			t.Errorf("%q: %s, want %q", in, got, want)
		}
	}
}
