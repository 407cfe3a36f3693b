package matcher

import (
	"bytes"
	"slices"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// checkObject: every part readObject finds is the canonical form of that
// part of the tree m.Parse gives, the whole is what Fingerprint hashes,
// and a body that is not one JSON object is refused.
func checkObject(t *testing.T, m *Matcher, body []byte) {
	t.Helper()
	o, ok := m.readObject(body, false)
	v, treeOK := m.Parse(body)
	tree, isObject := v.(map[string]any)
	if ok != (treeOK && isObject) {
		t.Fatalf("%q: readObject ok %v, tree ok %v object %v", body, ok, treeOK, isObject)
	}
	if !ok {
		return
	}
	if want := AppendCanonical(nil, tree); !bytes.Equal(o.Canonical(), want) {
		t.Fatalf("%q: canonical %q, want %q", body, o.Canonical(), want)
	}
	req := &cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: body}
	if o.Fingerprint(req) != m.Fingerprint(req) {
		t.Fatalf("%q: fingerprints differ", body)
	}
	for k, val := range tree {
		if got, want := o.Member(k), AppendCanonical(nil, val); !bytes.Equal(got, want) {
			t.Fatalf("%q: member %q is %q, want %q", body, k, got, want)
		}
		arr, isArray := val.([]any)
		if o.Len(k) != len(arr) {
			t.Fatalf("%q: member %q has %d elements, want %d (array %v)", body, k, o.Len(k), len(arr), isArray)
		}
		for i, e := range arr {
			if got, want := o.Element(k, i), AppendCanonical(nil, e); !bytes.Equal(got, want) {
				t.Fatalf("%q: %s[%d] is %q, want %q", body, k, i, got, want)
			}
		}
	}
	if o.Member("no such member") != nil || o.Len("no such member") != 0 {
		t.Fatalf("%q: a member that is not there was found", body)
	}
	// A brief read finds the same, in the read's own buffer.
	b, ok := m.readObject(body, true)
	if !ok || !bytes.Equal(b.canon, o.canon) || !slices.Equal(b.members, o.members) || !slices.Equal(b.elems, o.elems) {
		t.Fatalf("%q: a brief read differs from a kept one", body)
	}
	b.Release()
	b.Release() // twice is harmless
	if b.canon != nil {
		t.Fatalf("%q: a released object still holds the read's buffer", body)
	}
	o.Release() // a kept object's bytes stay
	if !bytes.Equal(o.canon, AppendCanonical(nil, tree)) {
		t.Fatalf("%q: releasing a kept object changed it", body)
	}
}

var objectSeeds = []string{
	`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"yo"}]}],"tools":[{"x":1}],"systemInstruction":{"parts":[{"text":"be"}]}}`,
	` {"b":[1,[2,3],{"c":[4]}],"a":[],"a":[5.0,"x"],"z":null} `,
	`{"generationConfig":{"seed":3},"a":[{"b":1,"c":2},{"b":[1]}],"contents":[{"parts":[{"functionCall":{"id":"adk-1","name":"f"}}]}]}`,
	`{"tools":[{"functionDeclarations":[{"name":"f","parameters":{}},{"name":"g"}]}],"k":"\u00e9\ud800"}`,
	`{}`, `[]`, `"x"`, `{"a":}`, `{"a":1} {`, ``,
}

func TestReadObject(t *testing.T) {
	byName, err := New("tools[*].functionDeclarations[g]", "a[*].b")
	if err != nil {
		t.Fatal(err)
	}
	ignoring, err := New("generationConfig.seed", "a[*].b", "a[0]", "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Matcher{Default(), ignoring, byName} {
		for _, s := range objectSeeds {
			checkObject(t, m, []byte(s))
		}
	}
	o, _ := Default().readObject([]byte(`{"b":[1, {"y":2,"x":1}],"a":"q"}`), false)
	if got := o.Element("b", 1); string(got) != `{"x":1,"y":2}` {
		t.Fatalf("element: %q", got)
	}
	if !slices.Equal([]string{o.members[0].key, o.members[1].key}, []string{"a", "b"}) {
		t.Fatalf("members not in key order: %+v", o.members)
	}
}

// FuzzObjectMatchesTree: readObject's parts agree with the parsed tree on
// any input, with ignored fields and with [NAME] selectors.
func FuzzObjectMatchesTree(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	byName, err := New("tools[*].functionDeclarations[g]")
	if err != nil {
		f.Fatal(err)
	}
	ignoring, err := New("generationConfig.seed", "a[*].b", "a[0]")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, m := range []*Matcher{Default(), ignoring, byName} {
			checkObject(t, m, body)
		}
	})
}
