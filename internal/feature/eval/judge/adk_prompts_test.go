// The variables of ADK-style judge prompt templates (a --judge-prompts
// folder), as the judge renders them for a recorded run scored against an
// eval set: each prompt sent to a scripted judge, in full. Moved here from
// the cmd suite, which keeps that score --judge-prompts reaches the judge.

package judge_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/scoring"
)

// adkStyleCassette is traffic as ADK Python sends it: the Gemini API's
// function call has no id, ADK's echo of it and the function response
// carry ADK's; the args and the tool's response have keys out of
// alphabetical order; the instruction has characters encoding/json
// escapes; the tool's parameters come in the wire's field order, not
// genai's. The second invocation calls no tool.
func adkStyleCassette(t *testing.T, dir string) string {
	t.Helper()
	const (
		user1  = `{"parts":[{"text":"Weather in Zürich?"}],"role":"user"}`
		sys    = `"systemInstruction":{"parts":[{"text":"Answer about weather & wind <briefly>."}],"role":"user"}`
		tools  = `"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING","description":"City"},"unit":{"type":"STRING","enum":["C","F"]}},"required":["city"]}}]}]`
		call   = `{"functionCall":{"name":"get_weather","args":{"unit":"C","city":"Zürich"}}}`
		echo   = `{"parts":[{"text":"Let me check."},{"functionCall":{"id":"adk-7","args":{"unit":"C","city":"Zürich"},"name":"get_weather"}}],"role":"model"}`
		result = `{"parts":[{"functionResponse":{"id":"adk-7","name":"get_weather","response":{"temp":7,"sky":"cloudy"}}}],"role":"user"}`
		final1 = `{"parts":[{"text":"It is 7°C and cloudy in Zürich."}],"role":"model"}`
		user2  = `{"parts":[{"text":"Thanks!"}],"role":"user"}`
		final2 = `{"parts":[{"text":"You are welcome."}],"role":"model"}`
	)
	answer := func(parts string) string {
		return `{"candidates":[{"content":{"parts":` + parts + `,"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash","usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":5,"totalTokenCount":10}}`
	}
	step := func(n int, req, resp string) string {
		return testutil.GenerateContentStep(n, "weather_agent", req, resp)
	}
	body := func(contents ...string) string {
		return `{"contents":[` + strings.Join(contents, ",") + `],` + sys + `,` + tools + `}`
	}
	yaml := `version: 2
name: zurich
sessions:
  - id: 1
    invocations:
      - id: 1
        user: Weather in Zürich?
        steps:
` + step(0, body(user1), answer(`[{"text":"Let me check."},`+call+`]`)) +
		step(1, body(user1, echo, result), answer(`[{"text":"It is 7°C and cloudy in Zürich."}]`)) + `      - id: 2
        user: Thanks!
        steps:
` + step(0, body(user1, echo, result, final1, user2), answer(`[{"text":"You are welcome."}]`))
	folder := filepath.Join(dir, "cassettes")
	writeTestFile(t, folder, "zurich.yaml", yaml)
	return folder
}

const adkStyleEvalSet = `{"eval_set_id": "zurich", "eval_cases": [{"eval_id": "zurich", "conversation": [
  {"invocation_id": "e1", "user_content": {"parts": [{"text": "Weather in Zürich?"}], "role": "user"},
   "final_response": {"parts": [{"text": "It is 7°C and cloudy in Zürich."}], "role": "model"}},
  {"invocation_id": "e2", "user_content": {"parts": [{"text": "Thanks!"}], "role": "user"},
   "final_response": {"parts": [{"text": "You are welcome."}], "role": "model"}}]}]}`

// The ADK-formatted values of invocation 1 of adkStyleCassette.
const (
	wantADKSteps = `{
  "tool_calls_and_response": [
    {
      "step": 0,
      "tool_call": {
        "id": "adk-7",
        "args": {
          "unit": "C",
          "city": "Zürich"
        },
        "name": "get_weather"
      },
      "tool_response": {
        "id": "adk-7",
        "name": "get_weather",
        "response": {
          "temp": 7,
          "sky": "cloudy"
        }
      }
    }
  ]
}`
	wantADKTools = `{
  "tool_declarations": {
    "weather_agent": [
      {
        "function_declarations": [
          {
            "description": "Weather for a city.",
            "name": "get_weather",
            "parameters": {
              "properties": {
                "city": {
                  "description": "City",
                  "type": "STRING"
                },
                "unit": {
                  "enum": [
                    "C",
                    "F"
                  ],
                  "type": "STRING"
                }
              },
              "required": [
                "city"
              ],
              "type": "OBJECT"
            }
          }
        ]
      }
    ]
  }
}`
	wantADKInstructions = "Answer about weather & wind <briefly>."
)

// judgeADKPrompts scores adkStyleCassette with the judge prompts files
// and criteria given, in-process against a scripted judge,
// and returns the prompts the judge was sent, in order.
func judgeADKPrompts(t *testing.T, files map[string]string, criteria string, answer func(prompt string) string) []string {
	t.Helper()
	return judgeADKPromptsWith(t, adkStyleEvalSet, files, criteria, answer)
}

func judgeADKPromptsWith(t *testing.T, evalSet string, files map[string]string, criteria string, answer func(prompt string) string) []string {
	t.Helper()
	dir := testutil.OutDir(t)
	folder := adkStyleCassette(t, dir)
	prompts := filepath.Join(dir, "prompts")
	for name, text := range files {
		writeTestFile(t, prompts, name, text)
	}
	evalset := writeTestFile(t, dir, "zurich.evalset.json", evalSet)
	cfgPath := writeTestFile(t, dir, "test_config.json", `{"criteria": {`+criteria+`}}`)
	var mu sync.Mutex
	var asked []string
	up := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		return fakejudge.Reply{Text: answer(prompt)}
	}})
	defer up.Close()
	result := scoreWithJudge(t, folder, evalset, cfgPath, prompts, up.URL)
	if s := scoring.Summary(result); !strings.HasPrefix(s, "PASSED") {
		t.Fatalf("%s", s)
	}
	return asked
}

// scoreWithJudge scores the cassettes against the eval set with the
// config's criteria, as score --judge-prompts does: a judge with the
// prompts folder's templates, calling the Gemini API at baseURL.
func scoreWithJudge(t *testing.T, cassettesDir, evalset, cfgPath, promptsDir, baseURL string) *scoring.Result {
	t.Helper()
	cfg, err := scoring.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := judge.CheckConfig(cfg); err != nil {
		t.Fatal(err)
	}
	prompts, err := judge.LoadPrompts(promptsDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: testutil.SecretAPIKey, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Judge = judge.New(client, judge.Options{Prompts: prompts, Backoff: func(int) time.Duration { return 0 }})
	exp, err := scoring.LoadExpected(evalset)
	if err != nil {
		t.Fatal(err)
	}
	_, loaded, err := cassettes.LoadPath(cassettesDir)
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := scoring.PairRuns(scoring.SessionsOf(loaded), exp, 1)
	return scoring.Evaluate(ctx, cfg, cases)
}

func writeTestFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkPrompts compares the prompts sent with the ones wanted, in full.
func checkPrompts(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d judge calls, want %d:\n%s", len(got), len(want), strings.Join(got, "\n-----\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("judge call %d sent\n%s\n----- want -----\n%s", i+1, got[i], want[i])
		}
	}
}

const rubricVerdicts = "ID: names_city\nProperty: Names the city.\nRationale: ok\nVerdict: yes\nID: gives_temp\nProperty: Gives the temperature.\nRationale: ok\nVerdict: yes\n"

const adkRubrics = `"rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}},
  {"rubric_id": "gives_temp", "rubric_content": {"text_property": "Gives the temperature."}}]`

// An ADK-style final-response rubric template gets every variable as ADK
// formats it: the agent's instructions and tool declarations from the
// recorded request, the tool calls paired with their responses by ADK's
// ids (args and response keys in the recorded order, non-ASCII and <, &
// as they are), the rubric list; and ADK's texts for an invocation
// without any tool call.
func TestJudgePromptADKVariablesFinalResponseRubrics(t *testing.T) {
	t.Parallel()
	tmpl := "OURS\n[instructions]\n{developer_instructions}\n[tools]\n{tool_declarations}\n[user]\n{user_input}\n[steps]\n{response_steps}\n[final]\n{final_response}\n[rubrics]\n{rubrics}\n[end] {{literal}}"
	got := judgeADKPrompts(t, map[string]string{"rubric_based_final_response_quality_v1.txt": tmpl},
		`"rubric_based_final_response_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}, `+adkRubrics+`}`,
		func(string) string { return rubricVerdicts })
	rubrics := "*  [id: names_city] Names the city.\n*  [id: gives_temp] Gives the temperature."
	want := []string{
		"OURS\n[instructions]\n" + wantADKInstructions + "\n[tools]\n" + wantADKTools + "\n[user]\nWeather in Zürich?\n[steps]\n" + wantADKSteps +
			"\n[final]\nIt is 7°C and cloudy in Zürich.\n[rubrics]\n" + rubrics + "\n[end] {literal}",
		// No tool call and no event but the final response: no
		// instructions, ADK's text for no steps, the same declarations.
		"OURS\n[instructions]\n\n[tools]\n" + wantADKTools + "\n[user]\nThanks!\n[steps]\nNo intermediate steps were taken.\n[final]\nYou are welcome.\n[rubrics]\n" + rubrics + "\n[end] {literal}",
	}
	// One check per variable, then the whole prompts byte for byte.
	for _, v := range []struct{ name, section string }{
		{"developer_instructions", "instructions"}, {"tool_declarations", "tools"}, {"user_input", "user"},
		{"response_steps", "steps"}, {"final_response", "final"}, {"rubrics", "rubrics"},
	} {
		t.Run(v.name, func(t *testing.T) {
			for i := range min(len(got), len(want)) {
				if g, w := section(got[i], v.section), section(want[i], v.section); g != w {
					t.Errorf("invocation %d: {%s} is\n%s\n----- want -----\n%s", i+1, v.name, g, w)
				}
			}
		})
	}
	checkPrompts(t, got, want)
}

var sectionRE = regexp.MustCompile(`\n\[[a-z]+\]( |\n)`)

// section is the text after the line "[name]" of a prompt, up to the next
// such line.
func section(prompt, name string) string {
	_, after, ok := strings.Cut(prompt, "["+name+"]\n")
	if !ok {
		return "(no section " + name + ")"
	}
	if loc := sectionRE.FindStringIndex(after); loc != nil {
		after = after[:loc[0]]
	}
	return after
}

// ADK's tool-use rubric template names the tool steps {tool_usage}: it
// loads, and gets the same rendering.
func TestJudgePromptADKVariablesToolUseRubrics(t *testing.T) {
	t.Parallel()
	tmpl := "OURS\n{tool_declarations}\n--\n{user_input}\n--\n{tool_usage}\n--\n{rubrics}"
	got := judgeADKPrompts(t, map[string]string{"rubric_based_tool_use_quality_v1.txt": tmpl},
		`"rubric_based_tool_use_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}, `+adkRubrics+`}`,
		func(string) string { return rubricVerdicts })
	rubrics := "*  [id: names_city] Names the city.\n*  [id: gives_temp] Gives the temperature."
	checkPrompts(t, got, []string{
		"OURS\n" + wantADKTools + "\n--\nWeather in Zürich?\n--\n" + wantADKSteps + "\n--\n" + rubrics,
		"OURS\n" + wantADKTools + "\n--\nThanks!\n--\nNo intermediate steps were taken.\n--\n" + rubrics,
	})
}

// final_response_match_v2's variables: the expected invocation's user
// text, the actual final response, the expected one.
func TestJudgePromptADKVariablesFinalResponseMatch(t *testing.T) {
	t.Parallel()
	tmpl := "OURS {prompt} | {response} | {golden_response}"
	got := judgeADKPrompts(t, map[string]string{"final_response_match_v2.txt": tmpl},
		`"final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}`,
		func(string) string { return `{"is_the_agent_response_valid": "valid"}` })
	checkPrompts(t, got, []string{
		"OURS Weather in Zürich? | It is 7°C and cloudy in Zürich. | It is 7°C and cloudy in Zürich.",
		"OURS Thanks! | You are welcome. | You are welcome.",
	})
}

// include_intermediate_responses_in_final: the response judged and the
// reference are every text of their invocation — the intermediate ones,
// then the final one — joined by line breaks ({response},
// {golden_response} and the rubric judge's {final_response}).
func TestJudgePromptADKVariablesIncludeIntermediateResponses(t *testing.T) {
	t.Parallel()
	evalSet := strings.Replace(adkStyleEvalSet, `"role": "model"}},`,
		`"role": "model"}, "intermediate_data": {"tool_uses": [], "tool_responses": [], "intermediate_responses": [["weather_agent", [{"text": "One moment."}]]]}},`, 1)
	files := map[string]string{"final_response_match_v2.txt": "OURS {response} | {golden_response}",
		"rubric_based_final_response_quality_v1.txt": "RUBRICS {final_response} | {rubrics}"}
	got := judgeADKPromptsWith(t, evalSet, files, `
	  "final_response_match_v2": {"threshold": 1.0, "include_intermediate_responses_in_final": true, "judge_model_options": {"num_samples": 1}},
	  "rubric_based_final_response_quality_v1": {"threshold": 1.0, "includeIntermediateResponsesInFinal": true, "judge_model_options": {"num_samples": 1}, `+adkRubrics+`}`,
		func(p string) string {
			if strings.HasPrefix(p, "OURS") {
				return `{"is_the_agent_response_valid": "valid"}`
			}
			return rubricVerdicts
		})
	rubrics := "*  [id: names_city] Names the city.\n*  [id: gives_temp] Gives the temperature."
	checkPrompts(t, got, []string{
		"OURS Let me check.\nIt is 7°C and cloudy in Zürich. | One moment.\nIt is 7°C and cloudy in Zürich.",
		"OURS You are welcome. | You are welcome.",
		"RUBRICS Let me check.\nIt is 7°C and cloudy in Zürich. | " + rubrics,
		"RUBRICS You are welcome. | " + rubrics,
	})
}

// hallucinations_v1: the validator's {sentences} in <sentence> tags, one a
// line, and its {context} as ADK builds it: the agents' instructions under
// their names, the user prompt, the tool declarations, then each earlier
// event's text, tool calls and tool outputs as Python's json.dumps writes
// them (indented, non-ASCII escaped); with intermediate responses judged,
// "Let me check." is judged against what came before it.
func TestJudgePromptADKVariablesHallucinations(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"hallucinations_v1_segmenter.txt": "SEGMENT {response}",
		"hallucinations_v1_validator.txt": "VALIDATE\n[context]\n{context}\n[sentences]\n{sentences}",
	}
	got := judgeADKPrompts(t, files,
		`"hallucinations_v1": {"threshold": 0.5, "evaluate_intermediate_nl_responses": true}`,
		func(p string) string {
			if text, ok := strings.CutPrefix(p, "SEGMENT "); ok {
				return "<sentence>" + strings.ReplaceAll(text, ". ", ".</sentence><sentence>") + "</sentence><sentence>Second.</sentence>"
			}
			return "sentence: x\nlabel: supported\nrationale: r\nsupporting_excerpt: s\ncontradicting_excerpt: c\n"
		})
	head := func(user string) string {
		return "VALIDATE\n[context]\nDeveloper instructions:\nweather_agent:\n" + wantADKInstructions + "\n\nUser prompt:\n" + user + "\n\nTool definitions:\n" + wantADKTools + "\n"
	}
	calls := "tool_calls:\n[\n  {\n    \"id\": \"adk-7\",\n    \"args\": {\n      \"unit\": \"C\",\n      \"city\": \"Z\\u00fcrich\"\n    },\n    \"name\": \"get_weather\"\n  }\n]\n"
	outputs := "tool_outputs:\n[\n  {\n    \"id\": \"adk-7\",\n    \"name\": \"get_weather\",\n    \"response\": {\n      \"temp\": 7,\n      \"sky\": \"cloudy\"\n    }\n  }\n]\n"
	want := []string{
		"SEGMENT Let me check.",
		head("Weather in Zürich?") + "\n[sentences]\n<sentence>Let me check.</sentence>\n<sentence>Second.</sentence>",
		"SEGMENT It is 7°C and cloudy in Zürich.",
		head("Weather in Zürich?") + "\nLet me check.\n\n" + calls + "\n" + outputs + "\n[sentences]\n<sentence>It is 7°C and cloudy in Zürich.</sentence>\n<sentence>Second.</sentence>",
		"SEGMENT You are welcome.",
		head("Thanks!") + "\n[sentences]\n<sentence>You are welcome.</sentence>\n<sentence>Second.</sentence>",
	}
	for _, name := range []string{"context", "sentences"} {
		t.Run(name, func(t *testing.T) {
			for i := 1; i < min(len(got), len(want)); i += 2 {
				if g, w := section(got[i], name), section(want[i], name); g != w {
					t.Errorf("validator call %d: {%s} is\n%s\n----- want -----\n%s", i/2+1, name, g, w)
				}
			}
		})
	}
	checkPrompts(t, got, want)
}

// ADK's simulator judge prompts are Jinja templates, one for scenarios
// without a persona and one with: per_turn_user_simulator_quality_v1.jinja
// and per_turn_user_simulator_quality_v1_persona.jinja replace adkproxy's
// and get ADK's variables — the plan, the history ("user: …" and "model:
// …" blank-line separated), the generated turn (the stop signal for the
// stop check), and the persona with its behaviors, whose texts the
// template renders with render_string_filter and whose
// get_violation_rubrics_str() gives ADK's "  * <rubric>" lines.
func TestJudgePromptADKSimulatorJinja(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"per_turn_user_simulator_quality_v1.jinja": "PLAIN {{ conversation_plan }}\n{{ conversation_history }}\nGEN {{ generated_user_response }} STOP {{ stop_signal }}",
		"per_turn_user_simulator_quality_v1_persona.jinja": "{% for b in persona.behaviors %}## {{ b.name | render_string_filter }}\n{{ b.description | render_string_filter }}\n" +
			"{{ b.get_violation_rubrics_str() | render_string_filter }}\n{% endfor %}PERSONA {{ persona.description }}\nGEN {{ generated_user_response }}",
	}
	criteria := `"per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}}`
	verdict := func(string) string { return `{"is_valid": true}` }
	scenario := func(persona string) string {
		return `{"eval_set_id": "zurich", "eval_cases": [{"eval_id": "sim", "conversation_scenario": {"starting_prompt": "Weather in Zürich?",
  "conversation_plan": "Ask for the weather in Zürich, then thank the agent."` + persona + `}}]}`
	}
	history := "user: Weather in Zürich?\n\nmodel: It is 7°C and cloudy in Zürich."
	all := history + "\n\nuser: Thanks!\n\nmodel: You are welcome."
	plan := "Ask for the weather in Zürich, then thank the agent."
	checkPrompts(t, judgeADKPromptsWith(t, scenario(""), files, criteria, verdict), []string{
		"PLAIN " + plan + "\n" + history + "\nGEN Thanks! STOP </finished>",
		"PLAIN " + plan + "\n" + all + "\nGEN </finished> STOP </finished>",
	})
	persona := `, "user_persona": {"id": "terse", "description": "A terse user.", "behaviors": [{"name": "Ends with {{ stop_signal }}",
  "description": "Says {{ stop_signal }} when done.", "behavior_instructions": ["Be brief."],
  "violation_rubrics": ["Goes on after the plan is done.", "Forgets {{ stop_signal }}."]}]}`
	head := "## Ends with </finished>\nSays </finished> when done.\n  * Goes on after the plan is done.\n  * Forgets </finished>.\nPERSONA A terse user.\n"
	checkPrompts(t, judgeADKPromptsWith(t, scenario(persona), files, criteria, verdict), []string{
		head + "GEN Thanks!",
		head + "GEN </finished>",
	})
	// A Go template of the same kind is used too (it used to be ignored).
	tmpl := map[string]string{"per_turn_user_simulator_quality_v1.tmpl": `{{define "main"}}MINE {{.Generated}}{{end}}`}
	checkPrompts(t, judgeADKPromptsWith(t, scenario(""), tmpl, criteria, verdict), []string{"MINE Thanks!", "MINE </finished>"})
}
