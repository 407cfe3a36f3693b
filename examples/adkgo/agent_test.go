package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"google.golang.org/adk/model/gemini"
)

// TestAgentReplays runs the demo agent under go test against the shipped
// cassette, with adkproxytest: ADK Go's model gets the proxy's
// ClientConfig (its base URL, and a placeholder key in replay), every model
// call is answered from the cassette and checked, and a recording no call
// reached fails the test. ADKPROXY_RECORD=1 with a key records it afresh.
func TestAgentReplays(t *testing.T) {
	p := adkproxytest.Start(t, "cassettes", adkproxytest.Cassette("default"))
	m, err := gemini.NewModel(t.Context(), "gemini-2.5-flash", p.ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), m, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"trip_planner calls get_weather(map[city:Lisbon])",
		"trip_planner calls get_local_time(map[city:Lisbon])",
		"trip_planner: It is 21°C and sunny in Lisbon",
		"trip_planner calls transfer_to_agent(map[agent_name:packing_advisor])",
		"packing_advisor: Light layers",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the agent's output lacks %q:\n%s", want, out.String())
		}
	}
}
