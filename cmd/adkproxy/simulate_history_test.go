package main

import (
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// The simulated user's conversation history shows a tool call's args and
// the tool's response as ADK does — Python's repr of the dicts, keys in
// the order the agent's server sent them (nested ones too), numbers as
// Python reads them, strings quoted and escaped as Python's repr — so a
// prompt template copied from ADK gets the bytes adk eval gives it.
func TestSimulateHistoryToolValuesAsADK(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	write := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	scen := write("scenarios.json", `{"scenarios": [{"starting_prompt": "What is the weather in Paris?", "conversation_plan": "Ask for the weather in Paris, then end."}]}`)
	cfg := write("test_config.json", `{"criteria": {}, "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 3, "include_function_calls": true,
  "custom_instructions": "Plan: {{ conversation_plan }}\nEnd with {{ stop_signal }}.\nHISTORY<<{{ conversation_history }}>>"}}`)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny",
		ToolArgs:   []byte(`{"city": "Paris", "units": "metric", "days": 3, "at": {"lon": 2.35, "lat": 48.85}, "note": "it's \"big\"\u00a0caf\u00e9", "ratio": 1.50}`),
		ToolResult: []byte(`{"temp_c": 21.0, "sky": "sunny", "wind": {"speed_kmh": 12, "dir": "NW"}, "alerts": [], "ok": true, "extra": null}`)})
	defer agent.Close()
	res, prompts := simulateOnce(t, dir, agent.URL, scen, cfg)
	if res.code != 0 {
		t.Fatalf("simulate: exit %d\n%s", res.code, res.stderr)
	}
	if len(prompts) != 1 {
		t.Fatalf("the simulated user was asked %d times, want once:\n%q", len(prompts), prompts)
	}
	want := "Plan: Ask for the weather in Paris, then end.\nEnd with </finished>.\nHISTORY<<" +
		"user: What is the weather in Paris?\n\n" +
		`weather_agent called tool 'get_weather' with args: {'city': 'Paris', 'units': 'metric', 'days': 3, 'at': {'lon': 2.35, 'lat': 48.85}, 'note': 'it\'s "big"\xa0café', 'ratio': 1.5}` + "\n\n" +
		`Tool 'get_weather' returned: {'temp_c': 21.0, 'sky': 'sunny', 'wind': {'speed_kmh': 12, 'dir': 'NW'}, 'alerts': [], 'ok': True, 'extra': None}` + "\n\n" +
		"weather_agent: It is 21°C and sunny in Paris.>>"
	if prompts[0] != want {
		t.Errorf("the simulated user's prompt:\n%s\nwant\n%s", prompts[0], want)
	}
}

// Custom instructions see the persona as ADK's UserPersona: texts as
// written, the two bullet methods, and render_string_filter renders a
// behavior text in the prompt's variables (the persona and the history
// too); the description is never rendered.
func TestSimulatePersonaVariablesAsADK(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	write := func(name, body string) string { return writeTestFile(t, dir, name, body) }
	scen := write("scenarios.json", `{"scenarios": [{"starting_prompt": "hi", "conversation_plan": "P",
  "user_persona": {"id": "TERSE", "description": "Says {{ stop_signal }} rarely.", "behaviors": [
    {"name": "Brief {{ persona.id }}", "description": "Plan is {{ conversation_plan }}; so far {{ conversation_history }}",
     "behavior_instructions": ["Write {{ stop_signal }} when done.", "Never repeat."], "violation_rubrics": ["Long.", "Repeats."]},
    {"name": "Quiet", "description": "", "behavior_instructions": [], "violation_rubrics": []}]}}]}`)
	cfg := write("test_config.json", `{"criteria": {}, "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 3,
  "custom_instructions": "{{ persona.description }}|{% for b in persona.behaviors %}{{ b.name }}={{ b.name | render_string_filter }}|{{ b.description | render_string_filter }}|{{ b.get_behavior_instructions_str() | render_string_filter }}|{{ b.get_violation_rubrics_str() }}|{% endfor %}{{ conversation_plan }}|{{ stop_signal }}|{{ conversation_history }}"}}`)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()
	res, prompts := simulateOnce(t, dir, agent.URL, scen, cfg)
	if res.code != 0 || len(prompts) != 1 {
		t.Fatalf("simulate: exit %d, %d prompt(s)\n%s", res.code, len(prompts), res.stderr)
	}
	want := "Says {{ stop_signal }} rarely.|" +
		"Brief {{ persona.id }}=Brief TERSE|Plan is P; so far user: hi\n\nweather_agent: Which city?|  * Write </finished> when done.\n  * Never repeat.|  * Long.\n  * Repeats.|" +
		"Quiet=Quiet||||" +
		"P|</finished>|user: hi\n\nweather_agent: Which city?"
	if prompts[0] != want {
		t.Errorf("the simulated user's prompt:\n%q\nwant\n%q", prompts[0], want)
	}
}

// simulateOnce runs adkproxy simulate against the agent server at agentURL
// with a simulated user that ends at once, and returns the prompts it was
// sent.
func simulateOnce(t *testing.T, dir, agentURL, scen, cfg string) (result, []string) {
	t.Helper()
	var mu sync.Mutex
	var prompts []string
	user := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		defer mu.Unlock()
		prompts = append(prompts, prompt)
		return fakejudge.Reply{Text: "</finished>"}
	}})
	defer user.Close()
	res := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, "simulate", "--server", agentURL, "--app", "weather",
		"--scenarios", scen, "--config", cfg, "--out", filepath.Join(dir, "out"), "--sim-cassettes", filepath.Join(dir, "sim"),
		"--sim-base-url", user.URL)
	mu.Lock()
	defer mu.Unlock()
	return res, prompts
}
