package judge_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
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

// promptsSent scores cs under config with a judge whose prompts are the
// ADK-style texts of templates (kind → text), for the ADK release
// version, and returns every prompt the judge got, in order. The judge
// answers the segmenter with the sentence "Packed." and anything else
// with one yes verdict.
func promptsSent(t *testing.T, version string, templates map[string]string, config string, cs []scoring.Case) []string {
	t.Helper()
	dir := t.TempDir()
	for kind, text := range templates {
		if err := os.WriteFile(filepath.Join(dir, kind+".txt"), []byte(text), 0o644); err != nil {
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
		if strings.HasPrefix(prompt, "SEGMENT") {
			return fakejudge.Reply{Text: "<sentence>Packed.</sentence>"}
		}
		return fakejudge.Reply{Text: "sentence: Packed.\nlabel: supported\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null\n"}
	}})
	defer up.Close()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: up.URL}})
	if err != nil {
		t.Fatal(err)
	}
	j := judge.New(client, judge.Options{Backoff: func(int) time.Duration { return 0 }, Prompts: prompts, ADKVersion: version})
	score(t, config, j, cs)
	mu.Lock()
	defer mu.Unlock()
	return sent
}

// TestCaseRubricsFollowADKVersion (issue 40, found by TestOracleADK118):
// ADK 1.18's rubric judges read the criterion's rubrics only, so with the
// version 1.18 an eval case's and an expected invocation's own rubrics
// are left out of the prompt; by default (newer ADK) they follow the
// criterion's.
func TestCaseRubricsFollowADKVersion(t *testing.T) {
	config := `{"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 0.5,
	  "judge_model_options": {"num_samples": 1},
	  "rubrics": [{"rubric_id": "city", "rubric_content": {"text_property": "Names the city."}}]}}}`
	c := scoring.Case{ID: "c", Actual: []scoring.Invocation{{UserText: "Weather in Paris?", FinalResponse: "Sunny in Paris."}},
		Expected: []scoring.Invocation{{UserText: "Weather in Paris?",
			Rubrics: json.RawMessage(`[{"rubric_id": "own", "rubric_content": {"text_property": "Is the invocation's own."}}]`)}},
		Rubrics: json.RawMessage(`[{"rubric_id": "case", "rubric_content": {"text_property": "Is the case's."}}]`)}
	templates := map[string]string{"rubric_based_final_response_quality_v1": "{rubrics}"}
	for version, want := range map[string]string{
		"1.18": "Names the city.",
		"":     "*  [id: city] Names the city.\n*  [id: case] Is the case's.\n*  [id: own] Is the invocation's own.",
	} {
		sent := promptsSent(t, version, templates, config, []scoring.Case{c})
		if len(sent) != 1 || sent[0] != want {
			t.Errorf("version %q: the rubrics sent are %q, want %q", version, sent, want)
		}
	}
}

// handoffCase is a coordinator that makes two parallel calls without ids
// (as the Gemini API sends them; ADK's own ids never reach the wire) and
// transfers to a sub-agent, which answers: its transfer response was
// never on the wire, so scoring gives it {} (as it does for every
// recorded session).
func handoffCase() scoring.Case {
	calls := []cassettes.ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Lisbon"}},
		{Name: "get_time", Args: map[string]any{"city": "Lisbon"}}}
	results := []cassettes.ToolResult{{Name: "get_weather", Response: map[string]any{"sky": "clear"}},
		{Name: "get_time", Response: map[string]any{"time": "10:00"}}}
	transfer := cassettes.ToolCall{Name: "transfer_to_agent", Args: map[string]any{"agent_name": "packer"}}
	inv := scoring.Invocation{UserText: "Pack for Lisbon?", FinalResponse: "Packed.",
		ToolCalls:   append(append([]cassettes.ToolCall(nil), calls...), transfer),
		ToolResults: append(append([]cassettes.ToolResult(nil), results...), cassettes.ToolResult{Name: "transfer_to_agent", Response: map[string]any{}}),
		Steps: []scoring.Step{{Agent: "coordinator", ToolCalls: calls}, {Agent: "coordinator", ToolResults: results, ToolCalls: []cassettes.ToolCall{transfer}},
			{Agent: "packer", Text: "Packed."}}}
	return scoring.Case{ID: "c", Actual: []scoring.Invocation{inv}, Expected: []scoring.Invocation{{UserText: "Pack for Lisbon?"}}}
}

// TestParallelCallsPairWithTheirOwnResponses (issue 40, found by
// TestOracleADK118): two calls of one step without ids each pair with the
// response of their own name, as ADK's ids pair them ({tool_usage}), in
// every release; before, both took the last response without an id.
func TestParallelCallsPairWithTheirOwnResponses(t *testing.T) {
	config := `{"criteria": {"rubric_based_tool_use_quality_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 1},
	  "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Calls get_weather."}}]}}}`
	templates := map[string]string{"rubric_based_tool_use_quality_v1": "{tool_usage}"}
	for _, version := range []string{"1.18", ""} {
		sent := promptsSent(t, version, templates, config, []scoring.Case{handoffCase()})
		if len(sent) != 1 {
			t.Fatalf("%d judge calls", len(sent))
		}
		var steps struct {
			List []struct {
				Call     struct{ Name string } `json:"tool_call"`
				Response struct {
					Name     string
					Response map[string]any
				} `json:"tool_response"`
			} `json:"tool_calls_and_response"`
		}
		if err := json.Unmarshal([]byte(sent[0]), &steps); err != nil || len(steps.List) != 3 {
			t.Fatalf("version %q: tool_usage %s (%v)", version, sent[0], err)
		}
		for i, s := range steps.List {
			if s.Call.Name != s.Response.Name {
				t.Errorf("version %q: step %d: %s paired with the response of %s", version, i, s.Call.Name, s.Response.Name)
			}
		}
	}
}

// TestTransferResponseFollowsADKVersion (issue 40, found by
// TestOracleADK118): a handoff's response, never on the wire, is what ADK
// for Python 1.18 records ({"result": null}, its tool returns None) with
// the version 1.18, and {} by default, in the rubric judges' steps and in
// the hallucination validator's context, which (in every release) holds
// it after the call as ADK's events do.
func TestTransferResponseFollowsADKVersion(t *testing.T) {
	config := `{"criteria": {"rubric_based_tool_use_quality_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 1},
	  "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Calls get_weather."}}]}, "hallucinations_v1": {"threshold": 0.5}}}`
	templates := map[string]string{"rubric_based_tool_use_quality_v1": "{tool_usage}",
		"hallucinations_v1_segmenter": "SEGMENT {response}", "hallucinations_v1_validator": "{context}"}
	for version, want := range map[string]string{"1.18": `{ "result": null }`, "": `{}`} {
		sent := promptsSent(t, version, templates, config, []scoring.Case{handoffCase()})
		if len(sent) != 3 {
			t.Fatalf("version %q: %d judge calls: %q", version, len(sent), sent)
		}
		compact := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		steps, context := compact(sent[0]), compact(sent[2])
		if !strings.Contains(steps, `"name": "transfer_to_agent", "response": `+want) {
			t.Errorf("version %q: the handoff's response in the tool steps is not %s:\n%s", version, want, sent[0])
		}
		if !strings.HasSuffix(context, `tool_outputs: [ { "name": "transfer_to_agent", "response": `+want+` } ]`) {
			t.Errorf("version %q: the validator's context does not end with the handoff's response %s:\n%s", version, want, sent[2])
		}
	}
}
