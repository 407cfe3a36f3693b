package pyjson

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// What Python 3 prints for the same values (repr(), json.dumps(v,
// sort_keys=True) and with ensure_ascii=False).
func TestAsPythonWritesThem(t *testing.T) {
	v := map[string]any{"b": []any{1.0, 2.5, nil, true, false}, "a": "it's \"x\"\n\té€😀\x7f\x01", "n": json.Number("1.50"),
		"big": 1234567.5, "tiny": 1e-05, "huge": 1e16, "neg": -0.25, "ints": []string{"x"}}
	for _, tc := range []struct{ got, want string }{
		{Repr(v), `{'a': 'it\'s "x"\n\té€😀\x7f\x01', 'b': [1, 2.5, None, True, False], 'big': 1234567.5, 'huge': 1e+16, 'ints': ['x'], 'n': 1.5, 'neg': -0.25, 'tiny': 1e-05}`},
		{Repr("it's"), `"it's"`},
		{Dumps(v, true), `{"a": "it's \"x\"\n\t\u00e9\u20ac\ud83d\ude00\u007f\u0001", "b": [1, 2.5, null, true, false], "big": 1234567.5, "huge": 1e+16, "ints": ["x"], "n": 1.50, "neg": -0.25, "tiny": 1e-05}`},
		{Dumps(v, false), `{"a": "it's \"x\"\n\té€😀` + "\x7f" + `\u0001", "b": [1, 2.5, null, true, false], "big": 1234567.5, "huge": 1e+16, "ints": ["x"], "n": 1.50, "neg": -0.25, "tiny": 1e-05}`},
		{Dumps("\b\f<&>", false), `"\b\f<&>"`},
		{Dumps(struct {
			A int `json:"a"`
		}{3}, false), `{"a": 3}`},
		{Float(math.Inf(-1)) + " " + Float(math.NaN()) + " " + Float(0.1) + " " + Float(1e-4), "-Infinity NaN 0.1 0.0001"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}

// Dumps writes JSON that reads back as the value it was given.
func FuzzDumpsReadsBack(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, null, "é\u0001"]}`, `"\ud83d\ude00"`, `[]`, `{"k": {"z": 1e300, "a": -0.0001}}`} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, doc string, ascii bool) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		out := Dumps(v, ascii)
		var back any
		if err := json.Unmarshal([]byte(out), &back); err != nil {
			t.Fatalf("Dumps(%s) = %s: not JSON: %v", doc, out, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("Dumps(%s) = %s reads back as %v", doc, out, back)
		}
		_ = Repr(v)
	})
}

// Repr of a document read by Decode is what Python 3 prints for
// repr(json.loads(doc)): keys in document order (nested too), integer
// literals as ints, other numbers as floats, strings quoted and escaped
// as Python's repr does (non-printable characters as \x, \u escapes).
func TestReprOfDecodedAsPython(t *testing.T) {
	doc := `{"zeta": {"z": 1, "a": [3.0, -0, 1E2, 1.50, 1e16, 1e15, 0.00001, 0.0001, 1e400, -0.0, 123456789012345678901234567890, 5e-324]}, "alpha": "it's", "q": "both ' and \"", "ctl": "\u0000\u007f\u0085\u00a0\u00ad\u2028\u200b\ufeff\ue000\ud83d\ude00\u0378 \u00e9", "nested": {"y": null, "x": true, "w": false}, "k\\ey": "back\\slash"}`
	want := `{'zeta': {'z': 1, 'a': [3.0, 0, 100.0, 1.5, 1e+16, 1000000000000000.0, 1e-05, 0.0001, inf, -0.0, 123456789012345678901234567890, 5e-324]}, 'alpha': "it's", 'q': 'both \' and "', 'ctl': '\x00\x7f\x85\xa0\xad\u2028\u200b\ufeff\ue000😀\u0378 é', 'nested': {'y': None, 'x': True, 'w': False}, 'k\\ey': 'back\\slash'}`
	v, err := Decode("doc.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := Repr(v.V); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Repr of a document read in order holds the same entries as Repr of its
// sorted form, and every number it writes reads back as the same value.
func FuzzReprDecoded(f *testing.F) {
	for _, s := range []string{`{"b": {"z": [1.50, -0, 1e400]}, "a": "it's \u00a0"}`, `[1E2, 5e-324, 123456789012345678901234567890]`, `{"k": 1, "k": 2.0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		v, err := Decode("doc.json", []byte(doc))
		if err != nil {
			return
		}
		if got, sorted := Repr(v.V), Repr(Plain(v.V)); len(got) != len(sorted) {
			t.Fatalf("Repr(%s) = %s, but sorted %s", doc, got, sorted)
		}
		var numbers func(any)
		numbers = func(x any) {
			switch x := x.(type) {
			case json.Number:
				want, _ := strconv.ParseFloat(x.String(), 64)
				if got, err := strconv.ParseFloat(reprNumber(x), 64); (err != nil && !math.IsInf(got, 0)) || got != want {
					t.Fatalf("%s written %s", x, reprNumber(x))
				}
			case []any:
				for _, e := range x {
					numbers(e)
				}
			case *Object:
				for _, k := range x.Keys() {
					numbers(x.Val(k))
				}
			}
		}
		numbers(v.V)
	})
}
