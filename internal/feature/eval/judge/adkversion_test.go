package judge_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/internal/testing/adkpytest"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/scoring"
	"google.golang.org/genai"
)

// adkRubricPrompts prints ADK 1.18's own rubric judge templates and the
// prompts its two rubric evaluators build for one invocation without
// tools (format_auto_rater_prompt), as JSON.
const adkRubricPrompts = `
import json
from google.adk.evaluation import rubric_based_final_response_quality_v1 as fr, rubric_based_tool_use_quality_v1 as tu
from google.adk.evaluation.eval_case import Invocation, IntermediateData
from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
from google.genai import types
rubrics = [{"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}},
           {"rubric_id": "polite", "rubric_content": {"text_property": "Is polite."}}]
inv = Invocation(user_content=types.Content(role="user", parts=[types.Part(text="Weather in Paris?")]),
                 final_response=types.Content(role="model", parts=[types.Part(text="It is sunny in Paris.")]),
                 intermediate_data=IntermediateData())
out = {"templates": {}, "prompts": {}}
for name, mod, cls in [("rubric_based_final_response_quality_v1", fr, fr.RubricBasedFinalResponseQualityV1Evaluator),
                       ("rubric_based_tool_use_quality_v1", tu, tu.RubricBasedToolUseV1Evaluator)]:
    config = EvalConfig.model_validate({"criteria": {name: {"threshold": 0.5, "rubrics": rubrics}}})
    e = cls(get_eval_metrics_from_config(config)[0])
    out["templates"][name] = e._auto_rater_prompt_template
    out["prompts"][name] = e.format_auto_rater_prompt(inv, None)
print(json.dumps(out))
`

// TestRubricPromptsFollowADKVersion (issue 40 defect 5): with ADK 1.18's
// own template texts in --judge-prompts and the version 1.18, both rubric
// judges send the prompt ADK 1.18's evaluators build, byte for byte (the
// rubrics joined by "\n*  ", no ids); by default the list is newer ADK's
// ("*  [id: …] text" on every line).
func TestRubricPromptsFollowADKVersion(t *testing.T) {
	var adk struct{ Templates, Prompts map[string]string }
	if err := json.Unmarshal(adkpytest.Run(t, adkRubricPrompts, nil), &adk); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range adk.Templates {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prompts, err := judge.LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent []string
	up := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		sent = append(sent, prompt)
		mu.Unlock()
		return fakejudge.Reply{Text: "Property: Names the city.\nRationale: r\nVerdict: yes\n"}
	}})
	defer up.Close()
	for _, version := range []string{"1.18", ""} {
		for name, want := range adk.Prompts {
			sent = nil
			client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
				HTTPOptions: genai.HTTPOptions{BaseURL: up.URL}})
			if err != nil {
				t.Fatal(err)
			}
			j := judge.New(client, judge.Options{Backoff: func(int) time.Duration { return 0 }, Prompts: prompts, ADKVersion: version})
			config := `{"criteria": {"` + name + `": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}, "rubrics": [
			  {"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}},
			  {"rubric_id": "polite", "rubric_content": {"text_property": "Is polite."}}]}}}`
			c := scoring.Case{ID: "c", Actual: []scoring.Invocation{{UserText: "Weather in Paris?", FinalResponse: "It is sunny in Paris."}},
				Expected: []scoring.Invocation{{UserText: "Weather in Paris?"}}}
			score(t, config, j, []scoring.Case{c})
			if len(sent) != 1 {
				t.Fatalf("%s: %d judge calls", name, len(sent))
			}
			if version == "1.18" && sent[0] != want {
				t.Errorf("%s, ADK 1.18: the prompt differs from ADK's:\n%s\n----- ADK 1.18 -----\n%s", name, sent[0], want)
			}
			if version == "" && sent[0] == want {
				t.Errorf("%s, latest: ADK 1.18's rubric list, want newer ADK's ids", name)
			}
		}
	}
}
