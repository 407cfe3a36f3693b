package runview

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// TestHTTPCallsUnderTheirStep: a tool exchange shows under the step it was
// filed with, in the table as "tool http GET host/path?query → status" and
// in the JSON document as the step's http_calls; one with no place is an
// other request naming its host.
func TestHTTPCallsUnderTheirStep(t *testing.T) {
	place := func(step int) *cassettes.Place {
		return &cassettes.Place{Session: 1, Invocation: 1, Step: step, Agent: "root", User: "weather in Paris?"}
	}
	model := func(step int, resp string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(resp)},
			Place:    place(step),
		}
	}
	tool := func(p *cassettes.Place, query string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Scheme: "https", Host: "weather.example.com", Method: "GET", Path: "/v1/current", Query: query},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"temp_c":18}`)},
			Place:    p,
		}
	}
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{
		model(0, `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}}]}`),
		tool(place(0), "city=Paris"),
		model(2, `{"candidates":[{"content":{"parts":[{"text":"18°C"}]}}]}`),
		tool(nil, "city=Nowhere"),
	}}
	run := recorded.Run{Cassettes: []recorded.Cassette{recorded.CassetteOf("c", "c.yaml", c)}}
	var table bytes.Buffer
	WriteTable(&table, "cassettes", run)
	lines := strings.Split(table.String(), "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "tool http GET weather.example.com/v1/current?city=Paris → 200" {
			at = i
		}
	}
	if at < 1 || !strings.Contains(lines[at-1], "step 0") || !strings.Contains(lines[at+1], "step 2") {
		t.Errorf("tool call not shown right under step 0:\n%s", table.String())
	}
	if !strings.Contains(table.String(), "GET  https://weather.example.com/v1/current") {
		t.Errorf("the unplaced tool exchange is not an other request naming its host:\n%s", table.String())
	}
	var doc bytes.Buffer
	if err := WriteJSON(&doc, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"http_calls":[{"method":"GET","scheme":"https","host":"weather.example.com","path":"/v1/current","query":"city=Paris","status":200}]`, `"http_calls":[]`} {
		if !strings.Contains(compact(t, doc.Bytes()), want) {
			t.Errorf("JSON lacks %s:\n%s", want, doc.String())
		}
	}
}

// compact is an indented JSON document on one line, HTML characters kept.
func compact(t *testing.T, doc []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
