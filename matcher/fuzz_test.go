package matcher

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// FuzzCanonical: canonical form is stable (canonicalising it again changes
// nothing), survives re-encoding through encoding/json with other key
// order and spacing, and equal canonical forms mean equal fingerprints.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2.0,{"y":null,"x":true}]}`, `[1e2, 100, 1.000e+2, -0, 0.0]`,
		`{"contents":[{"role":"user","parts":[{"text":"hi \u003c there"}]}]}`, `{"a":"\ud83d\ude00"}`, `[]`, `{"":{"":[]}}`,
		`{"contents":[{"parts":[{"thoughtSignature":"-__--w","inlineData":{"data":"+\/\/+"}}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, ok := ParseJSON(body)
		if !ok {
			return
		}
		canon := AppendCanonical(nil, v)
		again, ok := ParseJSON(canon)
		if !ok {
			t.Fatalf("canonical form %q is not JSON", canon)
		}
		if c2 := AppendCanonical(nil, again); !bytes.Equal(c2, canon) {
			t.Fatalf("not stable: %q then %q", canon, c2)
		}
		reencoded, err := json.MarshalIndent(v, "", "   ")
		if err != nil {
			return
		}
		a := &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body}
		b := &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: reencoded}
		if Default().Fingerprint(a) != Default().Fingerprint(b) {
			t.Fatalf("re-encoding %q as %q changed the fingerprint", body, reencoded)
		}
		if diffs := Default().Diff(a, b); len(diffs) != 0 {
			t.Fatalf("equal bodies reported different: %v", diffs)
		}
	})
}

// FuzzScannerMatchesTree: the one-pass canonicaliser used on replay's hot
// path agrees byte for byte with parsing the document and canonicalising
// the tree, ignored fields included, on any input.
func FuzzScannerMatchesTree(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2.0,{"y":null,"x":true}]}`, `{"a":1,"a":2}`, `["\ud83d\ude00","\ud800x","\u00e9\/"]`,
		`{"contents":[{"parts":[{"functionCall":{"id":"adk-1","name":"f"},"text":"a"}]}],"generationConfig":{"seed":3}}`,
		"{\"\xff\":\"\xfe\"}", `[1e400, -0.0e-5, 12345678901234567890123]`, ` [ ] `, `{"a":[[[{"b":{}}]]]}`,
		`{"inlineData":[{"data":"QQ"}],"x":{"inlineData":{"data":"a_b-","thoughtSignature":"\u002d_8"}},"thoughtSignature":["QQ"]}`} {
		f.Add([]byte(s))
	}
	m, err := New("generationConfig.seed", "a[*].b", "a[0]")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, fastOK := canonicalBytes(nil, body, m.ignore)
		v, treeOK := m.Parse(body)
		if fastOK != treeOK {
			t.Fatalf("scanner ok=%v, tree ok=%v for %q", fastOK, treeOK, body)
		}
		if !treeOK {
			return
		}
		if tree := AppendCanonical(nil, v); !bytes.Equal(fast, tree) {
			t.Fatalf("for %q\nscanner %q\ntree    %q", body, fast, tree)
		}
	})
}

// FuzzDiffJSON: any two JSON values diff without a panic whether their
// numbers were decoded exactly (ParseJSON) or as float64 (encoding/json),
// and differ exactly when their canonical forms do.
func FuzzDiffJSON(f *testing.F) {
	for _, p := range [][2]string{{`{"days":3}`, `{"days":5}`}, {`{"temp_c":64.4}`, `[64]`}, {`[1,2.0]`, `[1.0,2]`},
		{`{"a":null,"b":[[[]]]}`, `{"a":{"b":[null]}}`}, {`{"city":"Zürich 🌧"}`, `{"city":"Zurich"}`}, {`[1e308]`, `[-0]`},
		{`{"inlineData":{"data":"-_8"}}`, `{"inlineData":{"data":"+/8="}}`}, {`[{"thoughtSignature":"QR=="}]`, `[{"thoughtSignature":"QQ"}]`},
		{`{"contents":[{"parts":[{"functionCall":{"name":"f","args":{}}},{"functionResponse":{"name":"f"}}]}]}`, `{"contents":[{"parts":[{"functionCall":{"name":"f"}}]}]}`}} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ea, ok1 := ParseJSON(a)
		eb, ok2 := ParseJSON(b)
		if !ok1 || !ok2 {
			return
		}
		same := bytes.Equal(AppendCanonical(nil, ea), AppendCanonical(nil, eb))
		if diffs := DiffJSON("", ea, eb); (len(diffs) == 0) != same {
			t.Fatalf("%s vs %s: canonically equal %v, differences %v", a, b, same, diffs)
		}
		var fa, fb any
		if json.Unmarshal(a, &fa) != nil || json.Unmarshal(b, &fb) != nil {
			return
		}
		DiffJSON("", fa, fb)
		DiffJSON("", ea, fb)
		if diffs := DiffJSON("", fa, fa); len(diffs) != 0 {
			t.Fatalf("%s differs from itself: %v", a, diffs)
		}
	})
}

// FuzzQuotedMatchesRunes: copying plain runs whole writes the same bytes
// as escaping the string rune by rune (invalid UTF-8 as U+FFFD), for a
// string and for its bytes alike.
func FuzzQuotedMatchesRunes(f *testing.F) {
	for _, s := range []string{"", "plain text", "a\"b\\c\nd\re\tf\x01", "é☃😀", "\xff\xfe", "\xed\xa0\x80", "\xe2\x82", "ok\xf0\x9f\x98", "\uFFFD",
		// eight bytes at a time: each kind of byte that stops a plain run, in a word and past one
		"a plain run longer than a word", "0123456\"89", "01234567\\9abcdef", "01234567890123\x1f5", "0123456789é123456789", "012345678\xff0123456789", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f ~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := []byte{'"'}
		for _, r := range s {
			want = appendEscapedRune(want, r)
		}
		want = append(want, '"')
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("string %q: %q, want %q", s, got, want)
		}
		if got := appendJSONBytes([]byte("x"), []byte(s)); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("bytes %q: %q, want x%q", s, got, want)
		}
	})
}
