package pyjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A document reads as encoding/json reads it (numbers as written), keys in
// file order, and errors name the file, line and column or field path.
func TestDecodeAndPaths(t *testing.T) {
	v, err := Decode("c.json", []byte(`{"zeta": 1, "alpha": {"userId": "u"}, "list": [true, null, "x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := v.Object()
	if err != nil || strings.Join(o.Keys(), ",") != "zeta,alpha,list" {
		t.Fatalf("keys %v (%v), want file order", o.Keys(), err)
	}
	a, _ := v.Field(o, "alpha")
	ao, _ := a.Object()
	if u, ok := a.PyField(ao, "user_id"); !ok || u.Path != "alpha.userId" {
		t.Errorf("PyField found %+v, want the camelCase alias at alpha.userId", u)
	}
	l, _ := v.Field(o, "list")
	list, _ := l.List()
	if _, err := l.Elem(list, 2).Bool(); err == nil || err.Error() != `c.json: list[2]: expected true or false, got the string "x"` {
		t.Errorf("error %v", err)
	}
	if err := v.CheckPyKeys(o, "zeta", "alpha"); err == nil || err.Error() != "c.json: list: unknown key; known keys: alpha, zeta" {
		t.Errorf("CheckPyKeys: %v", err)
	}
	if _, err := Decode("bad.json", []byte("{\n  \"a\": tru\n}")); err == nil || !strings.HasPrefix(err.Error(), "bad.json:2:") {
		t.Errorf("syntax error %v, want the line", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, null], "b": {"c": "é"}}`, `[]`, `{"a": 1, "a": 2}`, `{`, `1 2`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		v, err := Decode("f.json", []byte(doc))
		valid := json.Valid([]byte(doc)) // the whole input must be one value
		d := json.NewDecoder(bytes.NewReader([]byte(doc)))
		d.UseNumber()
		var want any
		d.Decode(&want)
		if (err == nil) != valid {
			t.Fatalf("Decode(%q): %v; json.Valid: %v", doc, err, valid)
		}
		if err == nil && !reflect.DeepEqual(Plain(v.V), want) {
			t.Fatalf("Decode(%q) = %#v, encoding/json %#v", doc, Plain(v.V), want)
		}
	})
}
