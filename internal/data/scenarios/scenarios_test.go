package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The expected ids were computed with CPython 3.11:
// hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:8]
// over the same scenarios as dicts (see testdata/scenarios.json).
func TestLoadFileAndADKIDs(t *testing.T) {
	got, err := LoadFile("testdata/scenarios.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d scenarios, want 3", len(got))
	}
	if got[0].Persona != nil {
		t.Errorf("scenario 1: persona %+v, want none", got[0].Persona)
	}
	if id := got[0].ID(); id != "0645e35a" {
		t.Errorf("scenario 1 id = %s, want 0645e35a (Python: %s)", id, got[0].pythonJSON())
	}
	// camelCase keys, non-ASCII, a character beyond the BMP, quotes, tab,
	// backslash, DEL, and a custom persona with an ignored extra key.
	p := got[1].Persona
	if p == nil || p.ID != "HURRIED" || len(p.Behaviors) != 1 || p.Behaviors[0].Instructions[1] != "End with {{ stop_signal }} when done." {
		t.Fatalf("scenario 2 persona = %+v", p)
	}
	if id := got[1].ID(); id != "c6990153" {
		t.Errorf("scenario 2 id = %s, want c6990153 (Python: %s)", id, got[1].pythonJSON())
	}
	if p := got[2].Persona; p == nil || p.ID != "NOVICE" || len(p.Behaviors) != 5 || p.Behaviors[0].Name != "Advance if the Agent succeeds" {
		t.Errorf("scenario 3: NOVICE not resolved: %+v", p)
	}
}

func TestPythonJSONEscapes(t *testing.T) {
	s := Scenario{StartingPrompt: "a\"b\\c\n\r\t\b\f\x01é\u2028😀<>&", ConversationPlan: "p"}
	want := `{"conversation_plan": "p", "starting_prompt": "a\"b\\c\n\r\t\b\f\u0001\u00e9\u2028\ud83d\ude00<>&", "user_persona": null}`
	if got := s.pythonJSON(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCatalogue(t *testing.T) {
	if ids := strings.Join(PersonaIDs(), ","); ids != "EXPERT,NOVICE,EVALUATOR" {
		t.Errorf("persona ids = %s", ids)
	}
	if keys := BehaviorKeys(); len(keys) != 11 {
		t.Errorf("%d behaviors, want 11: %v", len(keys), keys)
	}
	order := map[string][]string{
		"EXPERT":    {"Advance in the Agent succeeds", "Answer only relevant questions", "Correct the Agent if it makes a mistake", "Troubleshoot once (if necessary)", "End the conversation appropriately", "Professional tone"},
		"NOVICE":    {"Advance if the Agent succeeds", "Do not correct the Agent", "Answer all questions", "End the conversation appropriately", "Conversational tone"},
		"EVALUATOR": {"Advance in the Agent succeeds", "Answer only relevant questions", "End the conversation appropriately", "Do not correct the Agent", "Conversational tone"},
	}
	for id, names := range order {
		p, ok := Prebuilt(id)
		if !ok {
			t.Fatalf("no persona %s", id)
		}
		var got []string
		for _, b := range p.Behaviors {
			got = append(got, b.Name)
			if b.Description == "" || len(b.Instructions) == 0 || len(b.ViolationRubrics) == 0 {
				t.Errorf("%s: behavior %q is missing texts", id, b.Name)
			}
		}
		if strings.Join(got, "|") != strings.Join(names, "|") {
			t.Errorf("%s behaviors = %q, want %q", id, got, names)
		}
	}
	// Callers get copies: changing one leaves the catalogue alone.
	p, _ := Prebuilt("NOVICE")
	p.Behaviors[0].ViolationRubrics[0] = "changed"
	q, _ := Prebuilt("NOVICE")
	if q.Behaviors[0].ViolationRubrics[0] == "changed" {
		t.Error("Prebuilt shares its texts with the caller")
	}
	end, _ := PrebuiltBehavior("END_NO_TROUBLESHOOTING")
	if !strings.Contains(strings.Join(end.ViolationRubrics, " "), "{{ stop_signal }}") {
		t.Error("END_NO_TROUBLESHOOTING rubrics do not mention the stop signal placeholder")
	}
}

func TestFileErrorsNameFileAndField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, `s.json: want {"scenarios": [...]}, got a list`},
		{`{"scenario": []}`, `s.json: scenario: unknown key; known keys: scenarios`},
		{`{"scenarios": [{"starting_prompt": "a", "conversation_plan": "b", "persona": "X"}]}`, `s.json: scenarios[0].persona: unknown key`},
		{`{"scenarios": [{"conversation_plan": "b"}]}`, `s.json: scenarios[0].starting_prompt: missing`},
		{`{"scenarios": [{"starting_prompt": " ", "conversation_plan": "b"}]}`, `s.json: scenarios[0].starting_prompt: empty`},
		{`{"scenarios": [{"starting_prompt": "a", "conversation_plan": 3}]}`, `s.json: scenarios[0].conversation_plan: expected a string, got 3`},
		{`{"scenarios": [{"starting_prompt": "a", "conversation_plan": "b", "user_persona": "NOVIC"}]}`, `s.json: scenarios[0].user_persona: unknown persona id "NOVIC" (pre-built: EXPERT, NOVICE, EVALUATOR)`},
		{`{"scenarios": [{"starting_prompt": "a", "conversation_plan": "b", "user_persona": {"id": "X", "description": "d", "behaviors": [{"name": "n", "description": "d", "behavior_instructions": []}]}}]}`,
			`s.json: scenarios[0].user_persona.behaviors[0].violation_rubrics: missing`},
		{`{"scenarios": [`, `s.json: invalid JSON`},
	} {
		_, err := ParseFile("s.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestSessionInput(t *testing.T) {
	si, err := LoadSessionInput("testdata/session_input.json")
	if err != nil {
		t.Fatal(err)
	}
	if si.AppName != "weather_agent" || si.UserID != "u1" || si.State["units"] != "metric" {
		t.Errorf("got %+v", si)
	}
	b, _ := json.Marshal(si)
	if string(b) != `{"app_name":"weather_agent","user_id":"u1","state":{"units":"metric"}}` {
		t.Errorf("marshalled %s", b)
	}
	_, err = ParseSessionInput("in.json", []byte(`{"app_name": "a"}`))
	if err == nil || err.Error() != "in.json: user_id: missing: a session input needs the user id" {
		t.Errorf("error %v", err)
	}
	if d := DefaultSessionInput(); d.AppName != "EvaluationGenerator" || d.UserID != "test_user_id" {
		t.Errorf("default %+v", d)
	}
}

func TestSimulatorConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "eval_config.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg, err := LoadSimulatorConfig(write(`{"criteria": {"hallucinations_v1": 0.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Type != TypeLLMBacked || cfg.Model != "gemini-2.5-flash" || cfg.MaxAllowedInvocations != 20 || string(cfg.ModelConfiguration) != string(DefaultModelConfiguration) {
		t.Errorf("defaults: %+v", cfg)
	}
	cfg, err = LoadSimulatorConfig(write(`{"userSimulatorConfig": {"model": "gemini-2.5-pro", "modelConfiguration": {"temperature": 0},
		"customInstructions": "{{ conversation_plan }}", "max_allowed_invocations": -1, "includeFunctionCalls": true, "type": null, "future_key": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Type != TypeLLMBacked || cfg.Model != "gemini-2.5-pro" || string(cfg.ModelConfiguration) != `{"temperature":0}` ||
		cfg.CustomInstructions != "{{ conversation_plan }}" || cfg.MaxAllowedInvocations != -1 || !cfg.IncludeFunctionCalls {
		t.Errorf("camelCase config: %+v", cfg)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"user_simulator_config": {"max_allowed_invocations": 2.5}}`, "user_simulator_config.max_allowed_invocations: want a whole number"},
		{`{"user_simulator_config": {"type": "llm_video"}}`, `user_simulator_config.type: "llm_video" is not "llm_backed" or "llm_audio"`},
		{`{"user_simulator_config": {"model_configuration": "x"}}`, "user_simulator_config.model_configuration: want a GenerateContentConfig object"},
		{`{"user_simulator_config": {"include_function_calls": "yes"}}`, "user_simulator_config.include_function_calls: want true or false"},
	} {
		_, err := LoadSimulatorConfig(write(tc.in))
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "eval_config.json")+": "+tc.want) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}
