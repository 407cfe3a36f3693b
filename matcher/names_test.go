package matcher

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// run plays one run of a client that creates a cache and an interaction,
// then echoes their names, with the names the server gave that time; it
// returns the fingerprints of the requests as the run numbers them.
func namedRun(m *Matcher, cache, interaction string) []Fingerprint {
	names := &Names{}
	var fps []Fingerprint
	step := func(req cassettes.Request, resp string) {
		fps = append(fps, m.Fingerprint(names.Rewrite(&req)))
		names.Learn(req.Path, &cassettes.Response{Status: 200, Body: []byte(resp)})
	}
	step(cassettes.Request{Method: "POST", Path: "/v1beta/cachedContents", Body: []byte(`{"model":"models/m","contents":[]}`)},
		`{"name": "`+cache+`", "model": "models/m"}`)
	step(cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"cachedContent":"` + cache + `","contents":[{"parts":[{"text":"hi"}]}]}`)},
		`{"candidates": []}`)
	step(cassettes.Request{Method: "GET", Path: "/v1beta/" + cache}, `{"name": "`+cache+`"}`)
	step(cassettes.Request{Method: "POST", Path: "/v1beta/interactions", Body: []byte(`{"model":"m","input":"one"}`)},
		`{"id": "`+interaction+`", "status": "completed"}`)
	step(cassettes.Request{Method: "POST", Path: "/v1beta/interactions", Body: []byte(`{"model":"m","input":"two","previous_interaction_id":"` + interaction + `"}`)},
		`{"id": "`+interaction+`x", "status": "completed"}`)
	step(cassettes.Request{Method: "GET", Path: "/v1beta/interactions/" + interaction + "x"}, `{}`)
	return fps
}

// TestNamesMatchByPlace: two runs whose server named things differently
// fingerprint every request alike, and a run that echoes another name
// (not the one it was given) does not.
func TestNamesMatchByPlace(t *testing.T) {
	m := Default()
	a := namedRun(m, "cachedContents/abc123", "v1_first")
	b := namedRun(m, "cachedContents/zz-9", "v1_other")
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("request %d fingerprints differently in the two runs", i+1)
		}
	}
	literal := &Names{}
	req := cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"cachedContent":"cachedContents/abc123"}`)}
	other := cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"cachedContent":"cachedContents/zz-9"}`)}
	if m.Fingerprint(literal.Rewrite(&req)) == m.Fingerprint(literal.Rewrite(&other)) {
		t.Error("names no response showed were treated as equal")
	}
	literal.Learn("/v1beta/cachedContents", &cassettes.Response{Body: []byte(`{"name":"cachedContents/abc123"}`)})
	if m.Fingerprint(literal.Rewrite(&req)) == m.Fingerprint(literal.Rewrite(&other)) {
		t.Error("a name the run never saw matched the run's first cache")
	}
}

// TestNamesRewriteWholeNamesOnly: a name that extends a known one, and an
// id inside a longer word, are left alone.
func TestNamesRewriteWholeNamesOnly(t *testing.T) {
	n := &Names{}
	n.Learn("/v1beta/files", &cassettes.Response{Body: []byte(`{"files":[{"name":"files/ab"}]}`)})
	n.Learn("/v1beta/interactions", &cassettes.Response{Body: []byte(`{"id":"v1_x"}`)})
	req := &cassettes.Request{Method: "POST", Path: "/v1beta/files/ab", Body: []byte(`{"a":"files/abc","b":"files/ab","c":"v1_xy","d":"v1_x"}`)}
	got := n.Rewrite(req)
	if want := `{"a":"files/abc","b":"files/#1","c":"v1_xy","d":"interactions#1"}`; string(got.Body) != want || got.Path != "/v1beta/files/#1" {
		t.Fatalf("Rewrite = %s %s; want /v1beta/files/#1 %s", got.Path, got.Body, want)
	}
	if string(req.Body) == string(got.Body) {
		t.Fatal("Rewrite changed the request it was given")
	}
}

// TestNamesLearnReportsWhetherAnswerHeldNames: replay skips learning from
// answers that held no name, so Learn must say which did — including an
// answer whose name the run already knew, and names in streamed events.
func TestNamesLearnReportsWhetherAnswerHeldNames(t *testing.T) {
	n := &Names{}
	cases := []struct {
		path string
		resp cassettes.Response
		want bool
	}{
		{"/v1beta/models/m:generateContent", cassettes.Response{Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"files are fine"}]}}]}`)}, false},
		{"/v1beta/cachedContents", cassettes.Response{Body: []byte(`{"name":"cachedContents/c1"}`)}, true},
		{"/v1beta/cachedContents/c1", cassettes.Response{Body: []byte(`{"name":"cachedContents/c1"}`)}, true},
		{"/v1beta/interactions", cassettes.Response{Events: []cassettes.Event{{Data: []byte(`{"interaction_id":"v1_q"}`)}}}, true},
		{"/v1beta/models/m:streamGenerateContent", cassettes.Response{Events: []cassettes.Event{{Data: []byte(`{"candidates":[]}`)}}}, false},
	}
	for _, c := range cases {
		if got := n.Learn(c.path, &c.resp); got != c.want {
			t.Errorf("Learn(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}
