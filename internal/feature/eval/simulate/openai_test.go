package simulate_test

import (
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/proxy"
)

// chatUser plays one scenario with the simulated user's model named
// openai/gemini-2.5-flash, through the in-process recorder in mode
// (upstream the fake when recording).
func chatUser(t *testing.T, mode proxy.Mode, dir, upstream string) *simulate.Transcript {
	t.Helper()
	pcfg := proxy.Config{Mode: mode, Dir: dir}
	if upstream != "" {
		pcfg.Upstream, _ = url.Parse(upstream)
	}
	rec, err := inprocess.Start(pcfg, inprocess.Options{Rerecord: "record the simulated user again", Where: "--sim-cassettes"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	adk := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer adk.Close()
	client, _ := adkapi.New(adk.URL, "")
	cfg := scenarios.DefaultSimulatorConfig()
	cfg.Model = "openai/gemini-2.5-flash"
	cfg.MaxAllowedInvocations = 2
	cfg.ModelConfiguration = json.RawMessage(`{"temperature": 0.5, "thinking_config": {"include_thoughts": true, "thinking_budget": 128}}`)
	r, err := simulate.New(simulate.Options{Server: client, App: "weather", Chat: rec.Chat("AIzaSyCHAT-USER-KEY-0123456789abcdef"), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	c := scenarioCase(t, `{"starting_prompt": "Hi", "conversation_plan": "Ask for the weather in Paris."}`)
	return r.Run(t.Context(), []*simulate.Case{c})[0]
}

// TestChatUserRecordThenReplay: the simulated user's model named
// openai/MODEL writes its turn with a chat completion, recorded through
// the in-process recorder (the key redacted) and replayed offline to the
// same turn.
func TestChatUserRecordThenReplay(t *testing.T) {
	script, err := fake.ParseScript("user.yaml", []byte("turns:\n  - model:\n      - text: The weather in Paris, please.\n"))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(fake.New(script))
	dir := filepath.Join(t.TempDir(), "sim")
	recorded := chatUser(t, proxy.ModeRecord, dir, up.URL)
	up.Close()
	if recorded.Failed() || len(recorded.Turns) != 2 || recorded.Turns[1].User.Parts[0].Text != "The weather in Paris, please." {
		t.Fatalf("recorded: %s after %d turns (%s)", recorded.Status, len(recorded.Turns), recorded.Failure)
	}
	var bodies []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".yaml") {
			b, _ := os.ReadFile(path)
			bodies = append(bodies, string(b))
		}
		return nil
	})
	if len(bodies) != 1 || !strings.Contains(bodies[0], inprocess.ChatPath) || !strings.Contains(bodies[0], "thinking_budget") ||
		strings.Contains(bodies[0], "AIzaSyCHAT-USER-KEY") {
		t.Fatalf("the simulated user's cassettes: %q", bodies)
	}

	replayed := chatUser(t, proxy.ModeReplay, dir, "")
	if replayed.Failed() || len(replayed.Turns) != 2 || replayed.Turns[1].User.Parts[0].Text != "The weather in Paris, please." {
		t.Errorf("replayed: %s after %d turns (%s)", replayed.Status, len(replayed.Turns), replayed.Failure)
	}
}

// TestSimulatorModelChecked: a model name or configuration the
// OpenAI-compatible endpoint cannot take is refused when the runner is
// made, naming the field.
func TestSimulatorModelChecked(t *testing.T) {
	for _, c := range []struct{ model, config, want string }{
		{"openai/", "", `user_simulator_config.model: "openai/" names no model`},
		{"vertex_ai/gemini", "", `user_simulator_config.model: model "vertex_ai/gemini": the prefix "vertex_ai/" is no provider`},
		{"openai/gemini-2.5-flash", `{"top_k": 4}`, "user_simulator_config.model_configuration: topK: no OpenAI-compatible field carries it"},
	} {
		cfg := scenarios.DefaultSimulatorConfig()
		cfg.Model, cfg.File = c.model, "eval_config.json"
		if c.config != "" {
			cfg.ModelConfiguration = json.RawMessage(c.config)
		}
		_, err := simulate.New(simulate.Options{Server: &adkapi.Client{BaseURL: "http://x"}, App: "a", Chat: &inprocess.Chat{}, Config: cfg})
		if err == nil || !strings.Contains(err.Error(), "eval_config.json: "+c.want) {
			t.Errorf("%s %s: %v, want %q", c.model, c.config, err, c.want)
		}
	}
}
