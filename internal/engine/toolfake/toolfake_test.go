package toolfake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func load(t *testing.T, text string) (*Set, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fakes.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func mcpCall(name, args string) *cassettes.Request {
	return &cassettes.Request{Scheme: "stdio", Host: "weather", Method: "POST", Path: "/",
		Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)}
}

// TestFakesInOrder: the first fake that still has calls and matches
// answers, each in its dialect; a used-up fake leaves the call to its
// recording; the report lists what was served and what was left.
func TestFakesInOrder(t *testing.T) {
	s, err := load(t, `
fakes:
  - tool: get_weather
    args: {city: Paris}
    result: {temp_c: 21}
  - tool: get_weather
    args: {city: {regex: "^Ly"}, units: ignore}
    error: no weather in Lyon
    times: 2
  - tool: travel_agent
    result: Booked
  - host: api.example.com/v1
    status: 503
    result: {busy: true}
  - tool: never_called
`)
	if err != nil {
		t.Fatal(err)
	}
	r, _, ok := s.Fake("default", mcpCall("get_weather", `{"city":"Paris","units":"C"}`))
	if !ok || r.Status != 200 || string(r.Body) != `{"id":7,"jsonrpc":"2.0","result":{"content":[{"text":"{\"temp_c\":21}","type":"text"}],"structuredContent":{"temp_c":21}}}` {
		t.Fatalf("first call: %v %s", ok, r.Body)
	}
	if !strings.HasSuffix(r.Header.Get(HeaderFake), "fakes.yaml:3") {
		t.Errorf("the answer is marked %q", r.Header.Get(HeaderFake))
	}
	if _, _, ok := s.Fake("default", mcpCall("get_weather", `{"city":"Paris"}`)); ok {
		t.Error("a fake with no times answered twice")
	}
	for range 2 {
		r, _, ok := s.Fake("default", mcpCall("get_weather", `{"city":"Lyon"}`))
		if !ok || !strings.Contains(string(r.Body), `"isError":true`) || !strings.Contains(string(r.Body), "no weather in Lyon") {
			t.Fatalf("Lyon: %v %s", ok, r.Body)
		}
	}
	if _, _, ok := s.Fake("default", mcpCall("get_weather", `{"city":"Lyon"}`)); ok {
		t.Error("times: 2 answered a third call")
	}
	a2a := &cassettes.Request{Scheme: "http", Host: "travel.test", Method: "POST", Path: "/",
		Body: []byte(`{"jsonrpc":"2.0","id":"x","method":"message/send","params":{"message":{"messageId":"m","parts":[{"kind":"text","text":"Paris"}],"metadata":{"adk_app_name":"travel_agent"}}}}`)}
	if r, _, ok := s.Fake("default", a2a); !ok || !strings.Contains(string(r.Body), `"text":"Booked"`) || !strings.Contains(string(r.Body), `"id":"x"`) {
		t.Errorf("A2A: %v %s", ok, r.Body)
	}
	httpReq := &cassettes.Request{Scheme: "https", Host: "api.example.com", Method: "GET", Path: "/v1/current", Query: "city=Paris"}
	if r, _, ok := s.Fake("default", httpReq); !ok || r.Status != 503 || string(r.Body) != `{"busy":true}` {
		t.Errorf("HTTP: %v %+v", ok, r)
	}
	other := &cassettes.Request{Scheme: "https", Host: "api.example.com.evil", Method: "GET", Path: "/v1/current"}
	if _, _, ok := s.Fake("default", other); ok {
		t.Error("a host that only starts like the fake's was faked")
	}
	rep := s.Report()
	if len(rep.Served) != 4 || len(rep.Unconsumed) != 1 || !strings.Contains(rep.Unconsumed[0], "never_called") {
		t.Errorf("report = %+v", rep)
	}
	if len(rep.Unexpected) != 2 || !strings.HasPrefix(rep.Unexpected[0], `get_weather {"city":"Paris"} (none of its 2 fake(s) left matches)`) {
		t.Errorf("the report's unexpected calls = %q", rep.Unexpected)
	}
	if !strings.Contains(rep.String(), "5 call(s) served, 1 fake(s) unconsumed, 2 unexpected call(s)") ||
		!strings.Contains(rep.String(), "  unexpected get_weather {\"city\":\"Lyon\"}") {
		t.Errorf("report text:\n%s", rep)
	}
}

// TestOneMatcherSyntax: a fake's arg_matchers are the scoring config's
// (read by its parser: tolerance, subset, superset, regex, ignore, "*"),
// compared with the argument's value in args, and its ignore paths are
// --ignore's, left out of both sides.
func TestOneMatcherSyntax(t *testing.T) {
	s, err := load(t, `
fakes:
  - tool: search
    args: {query: weather, limit: 10, filters: {region: eu, page: 1}}
    arg_matchers: {limit: {tolerance: 2}, query: {regex: "^wea"}}
    ignore: [filters.page]
    times: 0
  - tool: tags
    args: {tags: [a, b, c]}
    arg_matchers: {tags: subset, "*": ignore}
    times: 0
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, args string
		want       bool
	}{
		{"search", `{"query":"weather today","limit":11,"filters":{"region":"eu","page":7}}`, true},
		{"search", `{"query":"weather","limit":13,"filters":{"region":"eu"}}`, false},          // beyond the tolerance
		{"search", `{"query":"the weather","limit":10,"filters":{"region":"eu"}}`, false},      // the pattern
		{"search", `{"query":"weather","limit":10,"filters":{"region":"us","page":1}}`, false}, // a field not ignored
		{"tags", `{"tags":["b","a"],"other":1}`, true},
		{"tags", `{"tags":["a","d"]}`, false},
	} {
		if _, _, ok := s.Fake("default", mcpCall(c.tool, c.args)); ok != c.want {
			t.Errorf("%s %s: faked %v, want %v", c.tool, c.args, ok, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"fakes:\n  - tool: a\n    arg_matchers: {q: fuzzy}\n", `fakes[0]: arg_matchers.q: "fuzzy" is not a matcher`},
		{"fakes:\n  - tool: a\n    arg_matchers: {q: {tolerance: -1}}\n", "arg_matchers.q: tolerance: must be a finite number"},
		{"fakes:\n  - tool: a\n    args: {q: ignore}\n    arg_matchers: {q: exact}\n", "args.q is a matcher already"},
		{"fakes:\n  - tool: a\n    ignore: [\"a[\"]\n", `ignore "a["`},
	} {
		if _, err := load(t, c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"fakes:\n  - result: 1\n", ":2: fakes[0]: give exactly one of tool"},
		{"fakes:\n  - tool: a\n    host: b\n", "exactly one"},
		{"fakes:\n  - tool: a\n    result: 1\n    error: x\n", "result or error, not both"},
		{"fakes:\n  - tool: a\n    delay: forever\n", `delay "forever"`},
		{"fakes:\n  - tool: a\n    args: {q: {regex: \"(\"}}\n", "args.q: regex"},
		{"fakes:\n  - tool: a\n    colour: red\n", "colour"},
		{"fake: []\n", "fake"},
		{"fakes:\n  - tool: a\n    status: 200\n", "status is an HTTP host's"},
	} {
		if _, err := load(t, c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
	if s, err := load(t, ""); err != nil || len(s.Report().Unconsumed) != 0 {
		t.Errorf("an empty file: %v", err)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add("fakes:\n  - tool: a\n    args: {x: 1}\n    result: {y: 2}\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(t.TempDir(), "f.yaml")
		os.WriteFile(p, []byte(text), 0o600)
		if s, err := Load(p); err == nil {
			s.Fake("default", mcpCall("a", `{"x":1}`))
			_ = s.Report().String()
		}
	})
}

// TestFakesPerCassette: a fake with cassette answers only that cassette's
// calls, and a folder of fakes gives each NAME.yaml to cassette NAME (one
// file per eval case), each consumed in its own order.
func TestFakesPerCassette(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "case_a.yaml"), []byte("fakes:\n  - tool: get_weather\n    result: A\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "case_b.yaml"), []byte("fakes:\n  - tool: get_weather\n    result: B\n    times: 0\n"), 0o600)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(cassette string) string {
		r, _, ok := s.Fake(cassette, mcpCall("get_weather", `{"city":"Paris"}`))
		if !ok {
			return "none"
		}
		return string(r.Body)
	}
	if a, b, c := answer("case_a"), answer("case_b"), answer("other"); !strings.Contains(a, `"text":"A"`) || !strings.Contains(b, `"text":"B"`) || c != "none" {
		t.Errorf("case_a got %s, case_b %s, another cassette %s", a, b, c)
	}
	if a, b := answer("case_a"), answer("case_b"); a != "none" || !strings.Contains(b, `"text":"B"`) {
		t.Errorf("second calls: case_a got %s (its fake is used up), case_b %s", a, b)
	}
	if r := s.Report(); len(r.Unexpected) != 1 || !strings.Contains(r.Served[0].Fake, "case_a.yaml:2") {
		t.Errorf("report %+v", r)
	}
	one, err := load(t, "fakes:\n  - tool: get_weather\n    cassette: case_a\n    result: A\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := one.Fake("case_b", mcpCall("get_weather", `{}`)); ok {
		t.Error("a fake of cassette case_a answered case_b")
	}
	os.WriteFile(filepath.Join(dir, "case_c.yaml"), []byte("fakes:\n  - tool: t\n    cassette: case_a\n"), 0o600)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `case_c.yaml:2: fakes[0]: cassette "case_a": the fakes in case_c.yaml are cassette "case_c"'s`) {
		t.Errorf("a fake naming another cassette in a folder: %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no NAME.yaml") {
		t.Errorf("an empty folder: %v", err)
	}
}
