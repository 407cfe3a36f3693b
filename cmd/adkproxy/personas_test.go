package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// --personas FILE: a persona id in a scenario names the registry's persona
// (here a NOVICE in the user's own words) ahead of the pre-built one; its
// texts reach the simulator judge. A duplicate id is exit 65.
func TestScorePersonaRegistry(t *testing.T) {
	t.Parallel()
	golden := recordScenario(t, "golden", weatherScenario())
	dir := testutil.OutDir(t)
	evalset := writeTestFile(t, dir, "weather_sim.evalset.json", `{"eval_set_id": "weather_sim", "eval_cases": [{
  "eval_id": "4f1c2b9a",
  "conversation_scenario": {"starting_prompt": "What is the weather in Paris?", "conversation_plan": "Ask for the weather in Paris, then in Tokyo.", "user_persona": "NOVICE"}}]}`)
	personas := writeTestFile(t, dir, "personas.json", `{"personas": [{"id": "NOVICE", "description": "MY NOVICE: new to weather apps.",
  "behaviors": [{"name": "Asks plainly", "description": "MY BEHAVIOR", "behavior_instructions": ["Ask one city at a time.", "Write {{ stop_signal }} when done."],
                 "violation_rubrics": ["MY RUBRIC: asks two cities at once."]}]}]}`)
	config := writeTestFile(t, dir, "test_config.json", `{"criteria": {"per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}}}`)
	var mu sync.Mutex
	var asked []string
	fake := &fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		return simulatorApproving(prompt, seen)
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	r := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "score", "--cassettes", golden, "--expected", evalset, "--config", config,
		"--judge-cassettes", filepath.Join(dir, "judge"), "--judge-base-url", up.URL, "--personas", personas)
	if r.code != 0 || len(asked) == 0 {
		t.Fatalf("exit %d, %d judge calls\nstdout:\n%s\nstderr:\n%s", r.code, len(asked), r.stdout, r.stderr)
	}
	joined := strings.Join(asked, "\n")
	for _, want := range []string{"MY NOVICE: new to weather apps.", "MY RUBRIC: asks two cities at once."} {
		if !strings.Contains(joined, want) {
			t.Errorf("the judge was not told %q:\n%s", want, asked[0])
		}
	}
	dup := writeTestFile(t, dir, "dup.json", `[{"id": "A", "description": "a", "behaviors": []}, {"id": "A", "description": "b", "behaviors": []}]`)
	r = adkproxy(t, nil, "score", "--cassettes", golden, "--expected", evalset, "--personas", dup)
	if r.code != exitDataErr || !strings.Contains(r.stderr, `persona id "A" is used twice`) {
		t.Errorf("duplicate: exit %d\n%s", r.code, r.stderr)
	}
}
