package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// simulatorApproving is approving, plus a valid verdict for every user
// turn the simulator judge grades.
func simulatorApproving(prompt string, seen int) fakejudge.Reply {
	if strings.Contains(prompt, `"is_valid"`) {
		return fakejudge.Reply{Text: `{"criteria": [{"name": "Answer all questions", "reasoning": "Stays on the plan.", "passes": true}], "is_valid": true}`}
	}
	return approving(prompt, seen)
}

// A conversation_scenario case scored against a recorded two-turn run
// (paired by its starting prompt): the simulator judge's verdicts recorded
// with a key, then replayed with no key and the judge gone, to the same
// numbers.
func TestScoreScenarioCaseRecordThenReplay(t *testing.T) {
	t.Parallel()
	golden := recordScenario(t, "golden", weatherScenario())
	dir := testutil.OutDir(t)
	evalset := filepath.Join(dir, "weather_sim.evalset.json")
	if err := os.WriteFile(evalset, []byte(`{"eval_set_id": "weather_sim", "eval_cases": [{
  "eval_id": "4f1c2b9a",
  "conversation_scenario": {"starting_prompt": "What is the weather in Paris?", "conversation_plan": "Ask for the weather in Paris, then in Tokyo.", "user_persona": "NOVICE"},
  "rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "The answer names the city."}}]
}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "test_config.json")
	if err := os.WriteFile(config, []byte(`{"criteria": {
  "per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}},
  "hallucinations_v1": 1.0,
  "rubric_based_final_response_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}},
  "tool_trajectory_avg_score": 1.0,
  "multi_turn_task_success_v1": 0.5
}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	judgeDir := filepath.Join(dir, "judge")
	fake := &fakejudge.Handler{Script: simulatorApproving}
	up := httptest.NewServer(fake)
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", golden, "--expected", evalset, "--config", config,
			"--format", "json", "--out", out, "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(filepath.Join(dir, "recorded.json"), "--judge-base-url", up.URL)...)
	up.Close()
	// tool_trajectory_avg_score and multi_turn_task_success_v1 stay
	// NOT_EVALUATED on a scenario case, skipped as ADK skips them.
	if rec.code != 0 || !strings.Contains(rec.stderr, "1 of 1 case passed; 3 of 5 criteria passed (2 NOT_EVALUATED)") {
		t.Fatalf("record: exit %d\nstderr:\n%s", rec.code, rec.stderr)
	}
	// per_turn: turn 2 (3 samples) + the stop check (3 samples); turn 1 is
	// an exact match. hallucinations: segmenter + validator per turn.
	// rubrics: one call per turn.
	if want := 3 + 3 + 2*2 + 2; fake.Calls() != want {
		t.Errorf("the judge answered %d calls, want %d; stderr:\n%s", fake.Calls(), want, rec.stderr)
	}
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "12 calls replayed from "+judgeDir) {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, _ := os.ReadFile(filepath.Join(dir, "recorded.json"))
	replayed, _ := os.ReadFile(filepath.Join(dir, "replayed.json"))
	if a, b := withoutRunID(recorded), withoutRunID(replayed); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("replayed JSON differs from the recorded one:\n%s\n---\n%s", a, b)
	}
	for _, want := range []string{`"eval_id": "4f1c2b9a"`, `"metric_name": "per_turn_user_simulator_quality_v1"`,
		`"stop_check"`, `"verdict": "true"`, `"label": "supported"`, `"rubric_id": "names_city"`,
		`the eval case has a conversation_scenario, no expected conversation to compare with`,
		`Vertex AI's evaluation service needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION`} {
		if !bytes.Contains(replayed, []byte(want)) {
			t.Errorf("the JSON lacks %s:\n%s", want, replayed)
		}
	}
	table := adkproxy(t, nil, "score", "--cassettes", golden, "--expected", evalset, "--config", config, "--judge-cassettes", judgeDir)
	for _, want := range []string{"per_turn_user_simulator_quality_v1", "turn 2: valid (3 of 3 samples)"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, table.stdout)
		}
	}
}
