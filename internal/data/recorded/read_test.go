package recorded

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestCassetteOfOrder: sessions and invocations by id whatever the
// file order, steps in file order, agents distinct in order of appearance.
func TestCassetteOfOrder(t *testing.T) {
	model := func(session, invocation, step int, agent, tag string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}`)},
			Place:    &cassettes.Place{Session: session, Invocation: invocation, Step: step, Agent: agent, Tag: tag, User: fmt.Sprintf("u%d.%d", session, invocation)},
		}
	}
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{
		model(2, 1, 0, "solo", ""),
		model(1, 2, 0, "root", "t-2"),
		model(1, 2, 0, "helper", "t-2"),
		model(1, 2, 2, "root", "t-2"),
		model(1, 1, 0, "root", ""),
	}}
	got := CassetteOf("c", "c.yaml", c)
	var summary []string
	for _, s := range got.Sessions {
		for _, inv := range s.Invocations {
			var steps []string
			for _, st := range inv.Steps {
				steps = append(steps, fmt.Sprintf("%d:%s", st.Number, st.Agent))
			}
			summary = append(summary, fmt.Sprintf("%d.%d %s %s [%s] %v", s.ID, inv.ID, inv.User, inv.Tag, strings.Join(inv.Agents, ","), steps))
		}
	}
	want := []string{
		"1.1 u1.1  [root] [0:root]",
		"1.2 u1.2 t-2 [root,helper] [0:root 0:helper 2:root]",
		"2.1 u2.1  [solo] [0:solo]",
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
}

// TestHTTPCallsUnderTheirStep: a tool exchange is filed under the step it
// was placed with (a retried step's under the retry that answered, one
// whose step is gone under the last step) and in the invocation's calls in
// file order; one with no place is an other request.
func TestHTTPCallsUnderTheirStep(t *testing.T) {
	place := func(step int) *cassettes.Place {
		return &cassettes.Place{Session: 1, Invocation: 1, Step: step, Agent: "root", User: "weather in Paris?"}
	}
	model := func(step, status int, resp string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{"contents":[]}`)},
			Response: cassettes.Response{Status: status, Body: []byte(resp)},
			Place:    place(step),
		}
	}
	tool := func(p *cassettes.Place, query string) *cassettes.Exchange {
		return &cassettes.Exchange{
			Request:  cassettes.Request{Scheme: "https", Host: "weather.example.com", Method: "GET", Path: "/v1/current", Query: query},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"temp_c":18}`), Latency: 7},
			Place:    p,
		}
	}
	call := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}}]}`
	c := &cassettes.Cassette{Exchanges: []*cassettes.Exchange{
		model(0, 429, `{"error":{"status":"RESOURCE_EXHAUSTED"}}`),
		model(0, 200, call),
		tool(place(0), "city=Paris"),
		model(2, 200, `{"candidates":[{"content":{"parts":[{"text":"18°C"}]}}]}`),
		tool(place(9), "city=Oslo"),
		tool(nil, "city=Nowhere"),
	}}
	view := CassetteOf("c", "c.yaml", c)
	inv := view.Sessions[0].Invocations[0]
	steps := inv.Steps
	if len(steps) != 3 || len(steps[0].HTTPCalls) != 0 || len(steps[1].HTTPCalls) != 1 || len(steps[2].HTTPCalls) != 1 {
		t.Fatalf("steps %+v: want the Paris call under the retry of step 0, the Oslo one under the last step", steps)
	}
	if steps[0].ErrorStatus != "RESOURCE_EXHAUSTED" || steps[1].ErrorStatus != "" {
		t.Errorf("error statuses %q %q", steps[0].ErrorStatus, steps[1].ErrorStatus)
	}
	if h := steps[1].HTTPCalls[0]; h.String() != "GET weather.example.com/v1/current?city=Paris → 200" || h.Latency != 7 || h.Exchange != c.Exchanges[2] {
		t.Errorf("http call %+v", h)
	}
	if len(inv.HTTPCalls) != 2 || inv.HTTPCalls[0].Query != "city=Paris" || inv.HTTPCalls[1].Query != "city=Oslo" {
		t.Errorf("invocation's http calls %+v, want both in file order", inv.HTTPCalls)
	}
	if len(view.Other) != 1 || view.Other[0] != c.Exchanges[5] {
		t.Errorf("other %+v, want the unplaced tool exchange", view.Other)
	}
}
