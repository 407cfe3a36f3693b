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
	r, _, ok := s.Fake(mcpCall("get_weather", `{"city":"Paris","units":"C"}`))
	if !ok || r.Status != 200 || string(r.Body) != `{"id":7,"jsonrpc":"2.0","result":{"content":[{"text":"{\"temp_c\":21}","type":"text"}]}}` {
		t.Fatalf("first call: %v %s", ok, r.Body)
	}
	if !strings.HasSuffix(r.Header.Get(HeaderFake), "fakes.yaml:3") {
		t.Errorf("the answer is marked %q", r.Header.Get(HeaderFake))
	}
	if _, _, ok := s.Fake(mcpCall("get_weather", `{"city":"Paris"}`)); ok {
		t.Error("a fake with no times answered twice")
	}
	for range 2 {
		r, _, ok := s.Fake(mcpCall("get_weather", `{"city":"Lyon"}`))
		if !ok || !strings.Contains(string(r.Body), `"isError":true`) || !strings.Contains(string(r.Body), "no weather in Lyon") {
			t.Fatalf("Lyon: %v %s", ok, r.Body)
		}
	}
	if _, _, ok := s.Fake(mcpCall("get_weather", `{"city":"Lyon"}`)); ok {
		t.Error("times: 2 answered a third call")
	}
	a2a := &cassettes.Request{Scheme: "http", Host: "travel.test", Method: "POST", Path: "/",
		Body: []byte(`{"jsonrpc":"2.0","id":"x","method":"message/send","params":{"message":{"messageId":"m","parts":[{"kind":"text","text":"Paris"}],"metadata":{"adk_app_name":"travel_agent"}}}}`)}
	if r, _, ok := s.Fake(a2a); !ok || !strings.Contains(string(r.Body), `"text":"Booked"`) || !strings.Contains(string(r.Body), `"id":"x"`) {
		t.Errorf("A2A: %v %s", ok, r.Body)
	}
	httpReq := &cassettes.Request{Scheme: "https", Host: "api.example.com", Method: "GET", Path: "/v1/current", Query: "city=Paris"}
	if r, _, ok := s.Fake(httpReq); !ok || r.Status != 503 || string(r.Body) != `{"busy":true}` {
		t.Errorf("HTTP: %v %+v", ok, r)
	}
	other := &cassettes.Request{Scheme: "https", Host: "api.example.com.evil", Method: "GET", Path: "/v1/current"}
	if _, _, ok := s.Fake(other); ok {
		t.Error("a host that only starts like the fake's was faked")
	}
	rep := s.Report()
	if len(rep.Served) != 4 || len(rep.Unconsumed) != 1 || !strings.Contains(rep.Unconsumed[0], "never_called") {
		t.Errorf("report = %+v", rep)
	}
	if !strings.Contains(rep.String(), "5 call(s) served, 1 fake(s) unconsumed") {
		t.Errorf("report text:\n%s", rep)
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
			s.Fake(mcpCall("a", `{"x":1}`))
			_ = s.Report().String()
		}
	})
}
