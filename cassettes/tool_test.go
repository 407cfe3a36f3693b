package cassettes

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func toolExchange(query string, status int) *Exchange {
	return &Exchange{
		Request: Request{Scheme: "https", Host: "weather.example.com", Method: "GET", Path: "/v1/current", Query: query,
			Header: map[string][]string{"Accept": {"application/json"}}},
		Response: Response{Status: status, Body: []byte(`{"temp_c":21}`), End: EndComplete,
			Header: map[string][]string{"Content-Type": {"application/json"}}},
	}
}

// TestToolExchangesRoundTripUnderTheirStep: a tool exchange is written in
// its step's http_calls, listed in the step's trajectory, and reads back
// with its scheme, host and place; one whose step is not in the file is
// kept under other.
func TestToolExchangesRoundTripUnderTheirStep(t *testing.T) {
	step := simpleExchange(`{"contents":[{"role":"user","parts":[{"text":"weather?"}]}]}`, `{"candidates":[]}`)
	step.Place = &Place{Session: 1, Invocation: 1, User: "weather?", Step: 0, Agent: "root"}
	tool := toolExchange("city=Paris", 200)
	tool.Place = &Place{Session: 1, Invocation: 1, User: "weather?", Step: 0, Agent: "root"}
	lost := toolExchange("city=Lyon", 503)
	lost.Request.Scheme, lost.Request.Host = "http", "127.0.0.1:8080"
	c := &Cassette{Name: "tools", Exchanges: []*Exchange{step, tool, lost}}
	got, data := roundTrip(t, c)
	text := string(data)
	for _, want := range []string{"http_calls:", "host: weather.example.com", "scheme: https",
		"http_calls: ['GET weather.example.com/v1/current?city=Paris → 200']"} {
		if !strings.Contains(text, want) {
			t.Errorf("YAML lacks %q:\n%s", want, text)
		}
	}
	if d := diffCassettes(c, got); d != "" {
		t.Fatalf("round trip: %s\n%s", d, text)
	}
	if !reflect.DeepEqual(got.Exchanges[1].Place, tool.Place) || got.Exchanges[1].Request.Host != "weather.example.com" || got.Exchanges[1].Request.Scheme != "https" {
		t.Errorf("tool exchange read back as %+v at %+v", got.Exchanges[1].Request, got.Exchanges[1].Place)
	}
	if got.Exchanges[2].Place != nil || got.Exchanges[2].Request.Host != "127.0.0.1:8080" {
		t.Errorf("unplaced tool exchange read back as %+v at %+v", got.Exchanges[2].Request, got.Exchanges[2].Place)
	}

	// A tool exchange whose step is missing is kept, under other.
	orphan := toolExchange("city=Nice", 200)
	orphan.Place = &Place{Session: 1, Invocation: 1, Step: 4, Agent: "root"}
	got, data = roundTrip(t, &Cassette{Name: "tools", Exchanges: []*Exchange{step, orphan}})
	if len(got.Exchanges) != 2 || got.Exchanges[1].Request.Query != "city=Nice" {
		t.Fatalf("orphan tool exchange lost:\n%s", data)
	}
}

func TestToolRequestErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"version: 2\nname: x\nother:\n  - request: {scheme: ftp, host: a.example, method: GET, path: /}\n    response: {status: 200}\n", `scheme "ftp" is not http, https or stdio`},
		{"version: 2\nname: x\nother:\n  - request: {scheme: https, method: GET, path: /}\n    response: {status: 200}\n", `host "" is not a host`},
		{"version: 2\nname: x\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: u\n        steps:\n          - step: 0\n            agent: a\n            request: {method: POST, path: /x}\n            response: {status: 200}\n            http_calls:\n              - request: {method: GET, path: /y}\n                response: {status: 200}\n", "http call 1 needs the request's scheme and host"},
	} {
		_, err := Unmarshal(testFile, []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), testFile) {
			t.Errorf("error %v, want one naming %s and %q", err, testFile, tc.want)
		}
	}
}

func TestToolHostDropsDefaultPorts(t *testing.T) {
	for _, tc := range [][3]string{
		{"https", "Weather.Example.com:443", "weather.example.com"},
		{"http", "a.example:80", "a.example"},
		{"https", "a.example:8443", "a.example:8443"},
		{"https", "[::1]:443", "[::1]"},
		{"https", "a.example", "a.example"},
	} {
		if got := ToolHost(tc[0], tc[1]); got != tc[2] {
			t.Errorf("ToolHost(%s, %s) = %s, want %s", tc[0], tc[1], got, tc[2])
		}
	}
}

// TestJournalKeepsToolExchanges: a recording killed after a tool exchange
// was journalled loads it back with its scheme, host and place, and saves
// it under its step.
func TestJournalKeepsToolExchanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	step := journalExchange(1)
	tool := toolExchange("city=Paris", 200)
	tool.Place = &Place{Session: 1, Invocation: 1, User: "turn", Agent: "a"}
	writeJournal(t, path, "c", step, tool) // killed: no YAML written
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 || !c.Exchanges[1].IsTool() || c.Exchanges[1].Request.Scheme != "https" || !reflect.DeepEqual(c.Exchanges[1].Place, tool.Place) {
		t.Fatalf("journal gave back %+v", c.Exchanges)
	}
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "http_calls:\n") {
		t.Errorf("the saved cassette does not file the tool exchange under its step:\n%s", data)
	}
}
