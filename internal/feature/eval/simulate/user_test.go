package simulate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
)

// userUpstream answers the simulated user's calls with answer(prompt) (a
// whole generateContent response) and keeps each request body.
type userUpstream struct {
	answer func(prompt string) string
	mu     sync.Mutex
	bodies []string
}

func (u *userUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	json.Unmarshal(b, &req)
	u.mu.Lock()
	u.bodies = append(u.bodies, string(b))
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, u.answer(req.Contents[0].Parts[0].Text))
}

func textAnswer(text string) string {
	b, _ := json.Marshal(text)
	return `{"candidates": [{"content": {"role": "model", "parts": [{"text": "thinking…", "thought": true}, {"text": ` + string(b) + `}]}, "finishReason": "STOP"}]}`
}

// direct plays cases with the simulated user's model called directly (no
// recorder: the package does not need one).
func direct(t *testing.T, up http.Handler, cfg scenarios.SimulatorConfig, cases ...*simulate.Case) []*simulate.Transcript {
	t.Helper()
	srv := httptest.NewServer(up)
	defer srv.Close()
	model, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	adk := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer adk.Close()
	client, _ := adkapi.New(adk.URL, "")
	r, err := simulate.New(simulate.Options{Server: client, App: "weather", Model: model, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(t.Context(), cases)
}

func scenarioCase(t *testing.T, js string) *simulate.Case {
	t.Helper()
	s, err := scenarios.ParseScenario("test", "scenario", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return &simulate.Case{ID: s.ID(), Scenario: &s, Input: scenarios.DefaultSessionInput()}
}

// Custom instructions are Jinja, rendered with the plan, the history, the
// stop signal and the persona; the model configuration (snake_case keys)
// is the request's config; thought parts are not part of the reply.
func TestCustomInstructionsAndModelConfiguration(t *testing.T) {
	up := &userUpstream{answer: func(p string) string {
		if strings.Contains(p, "in Paris.") {
			return textAnswer("done " + simulate.StopSignal)
		}
		return textAnswer("Paris")
	}}
	cfg := scenarios.DefaultSimulatorConfig()
	cfg.Model = "gemini-custom"
	cfg.ModelConfiguration = json.RawMessage(`{"temperature": 0.25, "thinking_config": {"thinking_budget": 128}}`)
	cfg.CustomInstructions = "Plan: {{ conversation_plan | upper }}\n{% for b in persona.behaviors %}[{{ b.name }}]{% endfor %} by {{ persona.id }}\n" +
		"{% if conversation_history %}History:\n{{ conversation_history }}{% endif %}\nEnd with {{ stop_signal }}."
	c := scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "get the weather",
	  "user_persona": {"id": "P1", "description": "d", "behaviors": [{"name": "B1", "description": "x", "behavior_instructions": [], "violation_rubrics": []}]}}`)
	ts := direct(t, up, cfg, c)
	if ts[0].Status != simulate.StatusStop || len(ts[0].Turns) != 2 || ts[0].Turns[1].User.Parts[0].Text != "Paris" {
		t.Fatalf("%s after %d turns (%s)", ts[0].Status, len(ts[0].Turns), ts[0].Failure)
	}
	body := up.bodies[0]
	for _, want := range []string{`Plan: GET THE WEATHER\n[B1] by P1\nHistory:\nuser: hi\n\nweather_agent: Which city?\nEnd with \u003c/finished\u003e.`,
		`"temperature":0.25`, `"thinkingBudget":128`, `"parts":[{"text":`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s:\n%s", want, body)
		}
	}
	if !strings.Contains(ts[0].UserModel, "gemini-custom") {
		t.Errorf("model %q", ts[0].UserModel)
	}
}

// Custom instructions that miss a required variable are refused when the
// runner is made; with a persona they must use it.
func TestCustomInstructionsAreChecked(t *testing.T) {
	cfg := scenarios.DefaultSimulatorConfig()
	cfg.CustomInstructions = "{{ conversation_plan }} {{ conversation_history }}"
	_, err := simulate.New(simulate.Options{Server: &adkapi.Client{BaseURL: "http://x"}, App: "a", Config: cfg})
	if err == nil || !strings.Contains(err.Error(), "stop_signal") {
		t.Errorf("missing stop_signal: %v", err)
	}
	cfg.CustomInstructions = "{{ conversation_plan }} {{ conversation_history }} {% if x %}{{ stop_signal }}{% endif %"
	if _, err := simulate.New(simulate.Options{Server: &adkapi.Client{BaseURL: "http://x"}, App: "a", Config: cfg}); err == nil {
		t.Error("a template that does not parse was accepted")
	}
	// Custom instructions cannot read a file into the prompt.
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("TOP-SECRET"), 0o600)
	cfg.CustomInstructions = `{% include "` + secret + `" %} {{ conversation_plan }} {{ conversation_history }} {{ stop_signal }}`
	leak := &userUpstream{answer: func(string) string { return textAnswer("x") }}
	ts := direct(t, leak, cfg, scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "p"}`))
	if ts[0].Status != simulate.StatusFailed || strings.Contains(strings.Join(leak.bodies, ""), "TOP-SECRET") {
		t.Errorf("custom instructions that include a file: %s %q, %d calls sent", ts[0].Status, ts[0].Failure, len(leak.bodies))
	}
	cfg.CustomInstructions = "{{ conversation_plan }} {{ conversation_history }} {{ stop_signal }}"
	up := &userUpstream{answer: func(string) string { return textAnswer("x") }}
	ts = direct(t, up, cfg, scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "p", "user_persona": "EXPERT"}`))
	if ts[0].Status != simulate.StatusFailed || !strings.Contains(ts[0].Failure, "persona") || len(up.bodies) != 0 {
		t.Errorf("persona not referenced: %s %q", ts[0].Status, ts[0].Failure)
	}
}

// A blocked answer ends that scenario as failed with the reason; the
// other scenario goes on to its end.
func TestBlockedReplyFailsOnlyItsScenario(t *testing.T) {
	up := &userUpstream{answer: func(p string) string {
		if strings.Contains(p, "BLOCK-ME") {
			return `{"promptFeedback": {"blockReason": "SAFETY"}}`
		}
		return textAnswer(simulate.StopSignal)
	}}
	cfg := scenarios.DefaultSimulatorConfig()
	ts := direct(t, up, cfg,
		scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "BLOCK-ME"}`),
		scenarioCase(t, `{"starting_prompt": "hello", "conversation_plan": "fine"}`))
	if ts[0].Status != simulate.StatusNoMessage || !strings.Contains(ts[0].Failure, "blocked: SAFETY") {
		t.Errorf("blocked: %s %q", ts[0].Status, ts[0].Failure)
	}
	if ts[1].Status != simulate.StatusStop || ts[1].Failed() {
		t.Errorf("the other scenario: %s %q", ts[1].Status, ts[1].Failure)
	}
}

// The starting prompt holding the stop signal ends the conversation
// before anything is sent; a limit of 0 allows no turn at all.
func TestStartingPromptStopAndZeroLimit(t *testing.T) {
	up := &userUpstream{answer: func(string) string { return textAnswer("more") }}
	cfg := scenarios.DefaultSimulatorConfig()
	ts := direct(t, up, cfg, scenarioCase(t, `{"starting_prompt": "bye </FINISHED>", "conversation_plan": "p"}`))
	if ts[0].Status != simulate.StatusStop || len(ts[0].Turns) != 0 {
		t.Errorf("stop in the starting prompt: %s after %d turns", ts[0].Status, len(ts[0].Turns))
	}
	cfg.MaxAllowedInvocations = 0
	ts = direct(t, up, cfg, scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "p"}`))
	if ts[0].Status != simulate.StatusTurnLimit || len(ts[0].Turns) != 0 {
		t.Errorf("limit 0: %s after %d turns", ts[0].Status, len(ts[0].Turns))
	}
}

// With no retry_options of its own, the simulated user retries a 503 as
// ADK does (its first retry comes after about 5 s).
func TestModelCallRetriedWithADKDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for ADK's first retry delay (5 s)")
	}
	up := &userUpstream{answer: func(string) string { return textAnswer("</finished>") }}
	var calls atomic.Int32
	flaky := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, `{"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}`, http.StatusServiceUnavailable)
			return
		}
		up.ServeHTTP(w, r)
	})
	ts := direct(t, flaky, scenarios.DefaultSimulatorConfig(), scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "p"}`))
	if ts[0].Status != simulate.StatusStop || ts[0].Failed() || calls.Load() != 2 {
		t.Errorf("after a 503: %s %q, %d calls; want stop_signal_detected after 2 calls", ts[0].Status, ts[0].Failure, calls.Load())
	}
}

// Custom instructions that recurse without end (a Go stack overflow in the
// template engine, which killed the process) fail their scenario with the
// limit, naming the eval config file and the field; the run goes on.
func TestRunawayCustomInstructionsFailTheirScenario(t *testing.T) {
	cfg := scenarios.DefaultSimulatorConfig()
	cfg.File = "eval_config.json"
	cfg.CustomInstructions = `{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }} {{ conversation_plan }} {{ conversation_history }} {{ stop_signal }}`
	up := &userUpstream{answer: func(string) string { return textAnswer("x") }}
	ts := direct(t, up, cfg, scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "p"}`))
	if ts[0].Status != simulate.StatusFailed || !strings.Contains(ts[0].Failure, "eval_config.json: user_simulator_config.custom_instructions") ||
		!strings.Contains(ts[0].Failure, "nest too deeply") || len(up.bodies) != 0 {
		t.Errorf("runaway custom instructions: %s %q, %d calls sent", ts[0].Status, ts[0].Failure, len(up.bodies))
	}
	cfg.CustomInstructions = `{% for i in range(1000000000) %}{% endfor %}{{ conversation_plan }} {{ conversation_history }} {{ stop_signal }}`
	ts = direct(t, up, cfg, scenarioCase(t, `{"starting_prompt": "hi", "conversation_plan": "p"}`))
	if ts[0].Status != simulate.StatusFailed || !strings.Contains(ts[0].Failure, "eval_config.json: user_simulator_config.custom_instructions") ||
		!strings.Contains(ts[0].Failure, "range() of 1000000000 numbers, more than 100000") {
		t.Errorf("a huge range: %s %q", ts[0].Status, ts[0].Failure)
	}
}
