package judge_test

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

const simulatorConfig = `{"criteria": {
  "per_turn_user_simulator_quality_v1": {"threshold": 0.6, "judge_model_options": {"num_samples": 5}},
  "hallucinations_v1": 0.5,
  "rubric_based_final_response_quality_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}},
  "tool_trajectory_avg_score": 1.0,
  "final_response_match_v2": 0.5,
  "safety_v1": 0.8,
  "multi_turn_task_success_v1": 0.8
}}`

// simulatorScript answers the simulator judge by the generated user turn
// (the prompt's last section) and the number of times the prompt was asked:
//   - "For two people tonight.": valid, valid, invalid, unreadable, valid
//     (majority valid);
//   - "Thanks, bye.": valid, invalid, valid, invalid, unreadable (a tie:
//     invalid);
//   - "Hmm.": never a readable verdict (NOT_EVALUATED);
//   - the bare stop signal (the stop check): invalid when the history
//     mentions a taxi, else valid;
//   - anything else: valid.
//
// Every other prompt goes to the script of judge_test.go.
func simulatorScript(prompt string, seen int) fakejudge.Reply {
	if !strings.Contains(prompt, `"is_valid"`) {
		return script(prompt, seen)
	}
	_, generated, _ := strings.Cut(prompt, "# Generated user response\n")
	valid := `{"criteria": [{"name": "RESPONSIVENESS", "reasoning": "Answers the question.", "passes": true}], "is_valid": true}`
	invalid := `{"criteria": [{"name": "CONVERSATIONAL_TONE", "reasoning": "Too curt.", "passes": false}], "is_valid": false}`
	switch generated {
	case "For two people tonight.":
		return fakejudge.Reply{Text: []string{valid, valid, invalid, "I am not sure.", valid}[seen%5]}
	case "Thanks, bye.":
		return fakejudge.Reply{Text: []string{valid, invalid, valid, invalid, "```json\n{\"is_valid\": \"maybe\"}\n```"}[seen%5]}
	case "Hmm.":
		return fakejudge.Reply{Text: "no idea"}
	case "</finished>":
		if strings.Contains(prompt, "taxi") {
			return fakejudge.Reply{Text: invalid}
		}
	}
	return fakejudge.Reply{Text: valid}
}

func turn(user, answer string) scoring.Invocation {
	return scoring.Invocation{UserText: user, FinalResponse: answer, Steps: []scoring.Step{{Agent: "host", Text: answer}}}
}

func scenarioCases() []scoring.Case {
	return []scoring.Case{
		{ID: "novice", EvalSetID: "dinner", Scenario: []byte(`{"starting_prompt": "I want to book a table.", "conversation_plan": "Book a table for two tonight.", "user_persona": "NOVICE"}`),
			Rubrics: []byte(`[{"rubric_id": "names_city", "rubric_content": {"text_property": "The answer names the city."}},
			                  {"rubric_id": "polite", "rubric_content": {"text_property": "The answer is polite."}}]`),
			Actual: []scoring.Invocation{
				turn("I want to book a table.", "For how many people, and when?"),
				turn("For two people tonight.", "Booked: two people at 8pm in Paris."),
				turn("Thanks, bye.", "Goodbye!"),
			}},
		{ID: "hurried", EvalSetID: "dinner", Scenario: []byte(`{"startingPrompt": "Table for two tonight.", "conversationPlan": "Book a table.",
			"userPersona": {"id": "HURRIED", "description": "Writes short turns.", "behaviors": [{"name": "Terse", "description": "Keeps it short.",
			"behavior_instructions": ["Write one line."], "violation_rubrics": ["The turn is longer than one line.", "The turn forgets {{ stop_signal }} when done."]}]}}`),
			Actual: []scoring.Invocation{
				turn("Table for two tonight.", "Booked at 8pm."),
				turn("Actually also book a taxi.", "I cannot book taxis."),
			}},
		{ID: "unreadable", EvalSetID: "dinner", Scenario: []byte(`{"starting_prompt": "I want to book a table.", "conversation_plan": "Book a table for two."}`),
			Actual: []scoring.Invocation{
				turn("I want to book a table.", "For how many people?"),
				turn("Hmm.", "Take your time."),
				turn("For two people tonight.", "Booked."),
			}},
		{ID: "wrong-start", EvalSetID: "dinner", Scenario: []byte(`{"starting_prompt": "Hi there", "conversation_plan": "Say hi."}`),
			Actual: []scoring.Invocation{turn("hello", "Hello!")}},
	}
}

func TestSimulatorQualityRecordThenReplayIdentical(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var prompts []string
	fake := &fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		prompts = append(prompts, prompt)
		mu.Unlock()
		return simulatorScript(prompt, seen)
	}}
	up := httptest.NewServer(fake)
	j, srv := judgeVia(t, proxy.ModeRecord, dir, up.URL)
	rec, recJSON := score(t, simulatorConfig, j, scenarioCases())
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close() // the upstream is down from here on

	const metricName = scoring.PerTurnUserSimulatorQualityV1
	type turnWant struct {
		score  *float64 // nil: NOT_EVALUATED
		reason string   // a part of the turn's reason
	}
	for id, want := range map[string]struct {
		score float64
		turns []turnWant
	}{
		// The tie on turn 3 fails; the stop check passes and leaves it.
		"novice": {2.0 / 3, []turnWant{{scoring.Float(1), ""}, {scoring.Float(1), ""}, {scoring.Float(0), "turn 3: invalid (2 of 5 samples): CONVERSATIONAL_TONE: Too curt."}}},
		// The stop check fails and overwrites the last turn, which passed.
		"hurried": {0.5, []turnWant{{scoring.Float(1), ""}, {scoring.Float(0), "turn 2: the stop check failed, ending the conversation here was judged invalid (5 of 5 samples)"}}},
		// A turn without a readable verdict counts in the denominator.
		"unreadable":  {2.0 / 3, []turnWant{{scoring.Float(1), ""}, {nil, "turn 2: not evaluated: no sample gave a verdict"}, {scoring.Float(1), ""}}},
		"wrong-start": {0, []turnWant{{scoring.Float(0), `turn 1: "hello" is not the scenario's starting prompt "Hi there"`}}},
	} {
		m := metric(t, rec, id, metricName)
		if m.Score == nil || *m.Score != want.score {
			t.Errorf("%s: score %v, want %v (%s)", id, m.Score, want.score, m.Reason)
			continue
		}
		if len(m.PerInvocation) != len(want.turns) {
			t.Fatalf("%s: %d turns, want %d", id, len(m.PerInvocation), len(want.turns))
		}
		for i, tw := range want.turns {
			p := m.PerInvocation[i]
			switch {
			case tw.score == nil && (p.Score != nil || p.Status != scoring.NotEvaluated):
				t.Errorf("%s turn %d: %v %v, want NOT_EVALUATED", id, i+1, p.Score, p.Status)
			case tw.score != nil && (p.Score == nil || *p.Score != *tw.score):
				t.Errorf("%s turn %d: score %v, want %v", id, i+1, p.Score, *tw.score)
			}
			if !strings.Contains(p.Reason, tw.reason) || (tw.reason == "" && p.Reason != "") {
				t.Errorf("%s turn %d: reason %q, want %q", id, i+1, p.Reason, tw.reason)
			}
		}
	}
	if m := metric(t, rec, "novice", metricName); m.Status != scoring.Passed {
		t.Errorf("novice: %v, want PASSED at threshold 0.6 (%s)", m.Status, m.Reason)
	}
	if m := metric(t, rec, "hurried", metricName); m.Status != scoring.Failed {
		t.Errorf("hurried: %v, want FAILED", m.Status)
	}

	// The persona's violation rubrics are the criteria, rendered
	// ({{ stop_signal }} resolved); without a persona the fixed criteria.
	var novice, hurried, plain string
	for _, p := range prompts {
		switch {
		case strings.Contains(p, "# Generated user response\nFor two people tonight.") && strings.Contains(p, "Book a table for two tonight."):
			novice = p
		case strings.Contains(p, "Actually also book a taxi.") && strings.Contains(p, "# Generated user response\nActually"):
			hurried = p
		case strings.Contains(p, "# Generated user response\nHmm."):
			plain = p
		}
	}
	for _, want := range []string{"## Criteria: Advance if the Agent succeeds", "## Criteria: Do not correct the Agent",
		"  * The user turn corrects the agent.", "  * A reason to stop holds but the user turn does not write </finished>.",
		"# Persona description\nA user who depends on the agent", "# Conversation history\nuser: I want to book a table.\n\nmodel: For how many people, and when?\n\n# Persona"} {
		if !strings.Contains(novice, want) {
			t.Errorf("NOVICE judge prompt lacks %q:\n%s", want, novice)
		}
	}
	for _, want := range []string{"## Criteria: Terse\nKeeps it short.", "  * The turn forgets </finished> when done.", "# Persona description\nWrites short turns."} {
		if !strings.Contains(hurried, want) {
			t.Errorf("custom persona judge prompt lacks %q:\n%s", want, hurried)
		}
	}
	if strings.Contains(novice, "CONVERSATION_PLAN_FOLLOWED") || !strings.Contains(plain, "## CONVERSATION_PLAN_FOLLOWED") || strings.Contains(plain, "Persona") {
		t.Errorf("the fixed criteria belong to scenarios without a persona only:\n%s", plain)
	}

	// hallucinations_v1: the context of a turn is that turn's user prompt only.
	for _, p := range prompts {
		if strings.Contains(p, "supporting_excerpt:") && strings.Contains(p, "Booked: two people at 8pm in Paris.") {
			if !strings.Contains(p, "For two people tonight.") || strings.Contains(p, "I want to book a table.") {
				t.Errorf("turn 2's validator context should hold turn 2's user prompt only:\n%s", p)
			}
		}
	}
	if m := metric(t, rec, "novice", scoring.HallucinationsV1); m.Score == nil || *m.Score != 1 || len(m.PerInvocation) != 3 {
		t.Errorf("hallucinations_v1 on a scenario case: %v %q", m.Score, m.Reason)
	}
	// Rubric-based: the case's own rubrics on every turn (names_city yes,
	// polite no: 0.5); a case without rubrics is NOT_EVALUATED.
	if m := metric(t, rec, "novice", scoring.RubricBasedFinalResponseQualityV1); m.Score == nil || *m.Score != 0.5 || len(m.PerInvocation) != 3 {
		t.Errorf("rubric-based with the case's rubrics: %v %q", m.Score, m.Reason)
	}
	if m := metric(t, rec, "hurried", scoring.RubricBasedFinalResponseQualityV1); m.Status != scoring.NotEvaluated || !strings.Contains(m.Reason, "no rubrics") {
		t.Errorf("rubric-based without rubrics: %v %q", m.Status, m.Reason)
	}
	for name, reason := range map[string]string{
		scoring.ToolTrajectoryAvgScore: "the eval case has a conversation_scenario, no expected conversation to compare with",
		scoring.FinalResponseMatchV2:   "the eval case has a conversation_scenario, no expected conversation to compare with",
		"safety_v1":                    "safety_v1 is not computed by adkproxy: it needs Vertex AI's Gen AI Evaluation service",
		"multi_turn_task_success_v1":   "multi_turn_task_success_v1 is not computed by adkproxy: it needs Vertex AI's Gen AI Evaluation service",
	} {
		if m := metric(t, rec, "novice", name); m.Status != scoring.NotEvaluated || !strings.HasPrefix(m.Reason, reason) {
			t.Errorf("%s: %v %q, want NOT_EVALUATED: %s", name, m.Status, m.Reason, reason)
		}
	}

	// Replay: no upstream, no key — the same bytes.
	j, srv = judgeVia(t, proxy.ModeReplay, dir, "")
	_, repJSON := score(t, simulatorConfig, j, scenarioCases())
	if !bytes.Equal(recJSON, repJSON) {
		t.Errorf("replayed result differs from the recorded one:\nrecorded:\n%s\nreplayed:\n%s", recJSON, repJSON)
	}
	if st := srv.Stats(); st.Unmatched+st.Mismatched != 0 || st.Replayed != int64(fake.Calls()) {
		t.Errorf("replay stats %+v, want %d replayed and no misses", st, fake.Calls())
	}
}

func TestSimulatorQualityNeedsAScenario(t *testing.T) {
	cs := cases()[:1]                                      // a static conversation
	j, _ := judgeVia(t, proxy.ModeReplay, t.TempDir(), "") // would fail any call
	res, _ := score(t, `{"criteria": {"per_turn_user_simulator_quality_v1": 0.5}}`, j, cs)
	m := metric(t, res, "paris", scoring.PerTurnUserSimulatorQualityV1)
	if m.Status != scoring.NotEvaluated || !strings.Contains(m.Reason, "the eval case has no conversation_scenario") {
		t.Errorf("%v %q", m.Status, m.Reason)
	}
}

func TestSimulatorStopSignalIsChecked(t *testing.T) {
	cfg, err := scoring.ParseConfig("test_config.json", []byte(`{"criteria": {"per_turn_user_simulator_quality_v1": {"threshold": 1, "stop_signal": ""}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = judge.CheckConfig(cfg)
	if err == nil || !strings.HasPrefix(err.Error(), "test_config.json: criteria.per_turn_user_simulator_quality_v1.stop_signal: want the text that ends a simulated conversation") {
		t.Errorf("error %v", err)
	}
}

// A criterion's own stop_signal is the one the judge reads and the stop
// check writes.
func TestSimulatorCustomStopSignal(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	fake := &fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		prompts = append(prompts, prompt)
		mu.Unlock()
		return simulatorScript(prompt, seen)
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	j, _ := judgeVia(t, proxy.ModeRecord, t.TempDir(), up.URL)
	res, _ := score(t, `{"criteria": {"per_turn_user_simulator_quality_v1": {"threshold": 1, "stop_signal": "[[DONE]]", "judge_model_options": {"num_samples": 1}}}}`,
		j, scenarioCases()[1:2])
	if m := metric(t, res, "hurried", scoring.PerTurnUserSimulatorQualityV1); m.Score == nil || *m.Score != 1 {
		// The script fails only the stop check written "</finished>".
		t.Errorf("score %v (%s), want 1", m.Score, m.Reason)
	}
	last := prompts[len(prompts)-1]
	if !strings.HasSuffix(last, "# Generated user response\n[[DONE]]") || !strings.Contains(last, "  * The turn forgets [[DONE]] when done.") {
		t.Errorf("the stop check's prompt:\n%s", last)
	}
}
