package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"github.com/adkproxy/adkproxy/proxy"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/genai"
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

// TestAgentUnderAFault: a 503 injected at the first model call fails the
// agent whose client does not retry, and leaves the run failed; the same
// agent with one retry in its genai.ClientConfig gets the recording and
// the run passes (docs/resilience.md).
func TestAgentUnderAFault(t *testing.T) {
	for _, retries := range []int{0, 1} {
		p, err := adkproxytest.New("cassettes", "default", adkproxytest.Record(false),
			adkproxytest.Configure(func(c *proxy.Config) { c.Faults = []string{"call 1: 503"} }))
		if err != nil {
			t.Fatal(err)
		}
		cfg := p.ClientConfig()
		if retries > 0 {
			attempts, delay, jitter := int32(retries+1), 0.01, 0.0
			cfg.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts, InitialDelay: &delay, Jitter: &jitter}
		}
		m, err := gemini.NewModel(t.Context(), "gemini-2.5-flash", cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		runErr := run(t.Context(), m, &out)
		closeErr := p.Close()
		if retries == 0 {
			if runErr == nil || !strings.Contains(runErr.Error(), "Error 503") || closeErr == nil || !strings.Contains(closeErr.Error(), "the agent did not recover") {
				t.Errorf("no retries: run %v; close %v", runErr, closeErr)
			}
			continue
		}
		if runErr != nil || closeErr != nil || !strings.Contains(out.String(), "packing_advisor: Light layers") {
			t.Errorf("one retry: run %v; close %v\n%s", runErr, closeErr, out.String())
		}
	}
}
