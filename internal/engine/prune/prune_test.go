package prune

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

func exchange(session, step int, status int) *cassettes.Exchange {
	return &cassettes.Exchange{
		Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent"},
		Response: cassettes.Response{Status: status},
		Place:    &cassettes.Place{Session: session, Invocation: 1, User: "hi", Step: step, Agent: "m"},
	}
}

func unused(session, step int) matcher.Outcome {
	return matcher.Outcome{Outcome: matcher.OutcomeUnused, Cassette: "c", Method: "POST", Path: "/v1beta/models/m:generateContent",
		Session: session, Invocation: 1, User: "hi", Step: &step, Agent: "m"}
}

// Only recordings the report names beyond doubt go: two recordings at one
// place (a retried step) with one reported unused are both kept, as is an
// outcome with no place; the cassette given is left as it was.
func TestUnusedRemovesOnlyWhatIsCertain(t *testing.T) {
	c := &cassettes.Cassette{Name: "c", File: "c.yaml", Exchanges: []*cassettes.Exchange{
		exchange(1, 0, 200), exchange(1, 2, 200), exchange(2, 0, 429), exchange(2, 0, 200),
	}}
	r := proxy.Report{Mode: "replay", Outcomes: []matcher.Outcome{
		unused(1, 2), unused(2, 0),
		{Outcome: matcher.OutcomeUnused, Cassette: "c", Method: "GET", Path: "/v1beta/models"},
		{Outcome: matcher.OutcomeMatched, Cassette: "c", Method: "POST", Path: "/v1beta/models/m:generateContent"},
	}}
	plan := Unused(map[string]*cassettes.Cassette{"c": c}, r)
	if len(plan.Changed) != 1 || len(plan.Changed[0].Exchanges) != 3 || plan.Changed[0].File != "c.yaml" || plan.Changed[0].Exchanges[1].Place.Session != 2 {
		t.Fatalf("changed %+v", plan.Changed)
	}
	if len(c.Exchanges) != 4 {
		t.Error("the loaded cassette was modified")
	}
	if len(plan.Removed) != 1 || !strings.Contains(plan.Removed[0], "session 1, invocation 1 (\"hi\"), step 2") {
		t.Errorf("removed %q", plan.Removed)
	}
	if len(plan.Kept) != 2 || !strings.Contains(strings.Join(plan.Kept, "\n"), "2 recordings at this place, 1 reported unused") ||
		!strings.Contains(strings.Join(plan.Kept, "\n"), "GET /v1beta/models has no place") {
		t.Errorf("kept %q", plan.Kept)
	}
}
