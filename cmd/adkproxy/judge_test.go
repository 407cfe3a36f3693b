package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// approving is a judge that finds everything valid, every rubric met and
// every sentence supported, in the formats adkproxy's prompts ask for.
func approving(prompt string, seen int) fakejudge.Reply {
	switch {
	case strings.Contains(prompt, "is_the_agent_response_valid"):
		return fakejudge.Reply{Text: `{"reasoning": "Same facts as the reference.", "is_the_agent_response_valid": "valid"}`}
	case strings.Contains(prompt, "<property>"):
		var b strings.Builder
		for _, block := range strings.Split(prompt, "<property>")[1:] {
			id, _, _ := strings.Cut(strings.SplitN(block, "ID: ", 2)[1], "\n")
			b.WriteString("ID: " + id + "\nProperty: as given\nRationale: it holds\nVerdict: yes\n")
		}
		return fakejudge.Reply{Text: b.String()}
	case strings.Contains(prompt, "<sentence>first sentence"):
		return fakejudge.Reply{Text: "<sentence>The answer.</sentence>"}
	case strings.Contains(prompt, "supporting_excerpt:"):
		return fakejudge.Reply{Text: "sentence: The answer.\nlabel: supported\nrationale: the tool said so\nsupporting_excerpt: 18°C\ncontradicting_excerpt: none"}
	}
	return fakejudge.Reply{Status: 400}
}

const judgedConfig = `{"criteria": {
  "tool_trajectory_avg_score": 1.0,
  "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}},
  "rubric_based_tool_use_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1},
    "rubrics": [{"rubric_id": "one_call", "rubric_content": {"text_property": "The agent calls get_weather once per city."}}]},
  "hallucinations_v1": 1.0,
  "safety_v1": 1.0
}}`

// The Done-when of issue 17: record the judge's verdicts once with a key,
// then score with no key and no judge from the cassettes alone, and get
// the same numbers, byte for byte.
func TestScoreJudgedCriteriaReplayWithoutKeyOrNetwork(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	config := filepath.Join(dir, "test_config.json")
	if err := os.WriteFile(config, []byte(judgedConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	judgeDir := filepath.Join(dir, "judge")
	fake := &fakejudge.Handler{Script: approving}
	up := httptest.NewServer(fake)
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config,
			"--format", "json", "--out", out, "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey},
		args(filepath.Join(dir, "recorded.json"), "--judge-base-url", up.URL)...)
	up.Close()
	// safety_v1 stays NOT_EVALUATED (no Vertex AI): skipped as ADK skips it.
	if rec.code != 0 || !strings.Contains(rec.stderr, "judge: ") {
		t.Fatalf("record: exit %d\nstderr:\n%s", rec.code, rec.stderr)
	}
	// 2 invocations × (3 samples + 1 rubric call + segmenter + validator).
	wantCalls := 2 * (3 + 1 + 2)
	if fake.Calls() != wantCalls || !strings.Contains(rec.stderr, "judge: 12 calls made, recorded into "+judgeDir) {
		t.Errorf("the judge answered %d calls, want %d; stderr:\n%s", fake.Calls(), wantCalls, rec.stderr)
	}
	if n := testutil.CountInDir(t, judgeDir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the key appears %d times in the judge cassettes", n)
	}

	// No key, the judge gone: replay is the default.
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "judge: 12 calls replayed from "+judgeDir+"; ") ||
		!strings.Contains(rep.stderr, "by the price table (gemini-2.5-flash)") {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, _ := os.ReadFile(filepath.Join(dir, "recorded.json"))
	replayed, _ := os.ReadFile(filepath.Join(dir, "replayed.json"))
	if a, b := withoutRunID(recorded), withoutRunID(replayed); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("replayed JSON differs from the recorded one:\n%s\n---\n%s", a, b)
	}
	for _, want := range []string{`"metric_name": "final_response_match_v2"`, `"verdict": "valid"`, `"rationale": "Same facts as the reference."`,
		`"rubric_id": "one_call"`, `"label": "supported"`} {
		if !bytes.Contains(replayed, []byte(want)) {
			t.Errorf("the JSON lacks %s", want)
		}
	}

	// The table shows the majority and a rationale per invocation.
	table := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir)
	for _, want := range []string{"final_response_match_v2", "invocation 1: valid (3 of 3 samples): Same facts as the reference.",
		"invocation 2: 1 of 1 rubric met (majority of 1 sample): it holds", "invocation 1: 1 of 1 sentences supported"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, table.stdout)
		}
	}
	md := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir, "--format", "markdown")
	if !strings.Contains(md.stdout, "- `final_response_match_v2`: invocation 2: valid \\(3 of 3 samples\\): Same facts as the reference.") {
		t.Errorf("markdown lacks the verdict:\n%s", md.stdout)
	}
}

func withoutRunID(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"eval_set_result_id"`)) || bytes.Contains(l, []byte(`"eval_set_result_name"`)) || bytes.Contains(l, []byte(`"creation_timestamp"`)) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte("\n"))
}

func TestScoreJudgeUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-cassettes", dir, "--judge-mode", "record"); r.code != exitUsage ||
		!strings.Contains(r.stderr, "needs GOOGLE_API_KEY or GEMINI_API_KEY") {
		t.Errorf("record without a key: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-mode", "replay"); r.code != exitUsage {
		t.Errorf("--judge-mode without --judge-cassettes: exit %d, stderr %s", r.code, r.stderr)
	}
	// Another recorder holds the folder: exit 75, nothing written.
	l, _, err := reclock.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, "score", "--cassettes", weatherCassette, "--judge-cassettes", dir)
	l.Release()
	if r.code != exitTempFail {
		t.Errorf("recording into a locked folder: exit %d, stderr %s", r.code, r.stderr)
	}
	bad := filepath.Join(dir, "bad_config.json")
	os.WriteFile(bad, []byte(`{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {"num_samples": 2.5}}}}`), 0o644)
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--config", bad, "--judge-cassettes", dir); r.code != exitDataErr ||
		!strings.Contains(r.stderr, "bad_config.json: criteria.final_response_match_v2.judge_model_options.num_samples: want a whole number") {
		t.Errorf("bad judge options: exit %d, stderr %s", r.code, r.stderr)
	}
	// A missing folder is nothing recorded (TestScoreAnalysisReplayWithoutJudgeFolder); a file is an error.
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-cassettes", bad); r.code != exitDataErr ||
		!strings.Contains(r.stderr, "--judge-cassettes") {
		t.Errorf("replay from a file: exit %d, stderr %s", r.code, r.stderr)
	}
}

// Record had nothing to judge (every case passed, no LLM-judged criterion),
// so it never created the judge's folder: replaying the same run is
// "nothing to judge", not exit 65. When a call is needed after all, the
// hint is score's own record mode, not 'adkproxy record'.
func TestScoreAnalysisReplayWithoutJudgeFolder(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "judge")
	report := filepath.Join(t.TempDir(), "analysis.md")
	r := adkproxy(t, nil, "score", weatherCassette, "--expected", weatherEvalSet, "--config", weatherConfig,
		"--judge-cassettes", missing, "--judge-mode", "replay", "--analysis", report)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: nothing to judge\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("replay created the judge's folder")
	}
	data, err := os.ReadFile(weatherEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	london := filepath.Join(t.TempDir(), "london.evalset.json")
	os.WriteFile(london, []byte(strings.Replace(string(data), `"args": {"city": "Tokyo"}`, `"args": {"city": "London"}`, 1)), 0o644)
	r = adkproxy(t, nil, "score", weatherCassette, "--expected", london, "--config", weatherConfig,
		"--judge-cassettes", missing, "--judge-mode", "replay", "--analysis", report)
	if r.code != exitFailure || !strings.Contains(r.stderr, "adkproxy score --judge-mode record") || strings.Contains(r.stderr, "adkproxy record --cassettes") {
		t.Errorf("a failed case to analyse: exit %d, want 1 with the hint score --judge-mode record\nstderr:\n%s", r.code, r.stderr)
	}
}

// --judge-prompts DIR swaps adkproxy's judge prompts for the user's: an
// ADK-style text with ADK's variable names, and a Go template over
// adkproxy's data; a placeholder the prompt does not fill, or a file of no
// known kind, is exit 65 naming the file.
func TestScoreJudgePromptsDir(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	prompts := filepath.Join(dir, "prompts")
	writeTestFile(t, prompts, "final_response_match_v2.txt", "MY V2 PROMPT\nUser: {prompt}\nAgent: {response}\nGolden: {golden_response}\nAnswer in JSON like {{\"is_the_agent_response_valid\": \"valid\"}}.")
	writeTestFile(t, prompts, "rubric_based_final_response_quality_v1.tmpl", `{{define "main"}}MY RUBRIC PROMPT for {{.UserPrompt}}{{end}}{{define "property"}}ID: {{.ID}}
Property: {{.Text}}{{end}}`)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {
	  "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}},
	  "rubric_based_final_response_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1},
	    "rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}}]}}}`)
	var mu sync.Mutex
	var asked []string
	fake := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		if strings.HasPrefix(prompt, "MY V2 PROMPT") {
			return fakejudge.Reply{Text: `{"reasoning": "ok", "is_the_agent_response_valid": "valid"}`}
		}
		return fakejudge.Reply{Text: "ID: names_city\nProperty: Names the city.\nRationale: it does\nVerdict: yes\n"}
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	judgeDir := filepath.Join(dir, "judge")
	args := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg,
		"--judge-cassettes", judgeDir, "--judge-prompts", prompts, "--judge-base-url", up.URL}
	r := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args...)
	if r.code != 0 || len(asked) != 4 {
		t.Fatalf("exit %d, %d judge calls\nstdout:\n%s\nstderr:\n%s", r.code, len(asked), r.stdout, r.stderr)
	}
	joined := strings.Join(asked, "\n---\n")
	for _, want := range []string{
		"MY V2 PROMPT\nUser: What is the weather in Paris?\nAgent: It is 18°C in Paris, clear.\nGolden: It is 18°C and clear in Paris.\nAnswer in JSON like {\"is_the_agent_response_valid\": \"valid\"}.",
		"MY RUBRIC PROMPT for And what about Tokyo?\nID: names_city\nProperty: Names the city.",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no judge call asked\n%s\ncalls:\n%s", want, joined)
		}
	}
	// Replay with the same prompts, no key: the same verdicts.
	if r := adkproxy(t, nil, args...); r.code != 0 {
		t.Errorf("replay: exit %d\n%s", r.code, r.stderr)
	}

	bad := filepath.Join(dir, "bad")
	writeTestFile(t, bad, "final_response_match_v2.txt", "Reference: {reference}")
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--judge-prompts", bad)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "final_response_match_v2.txt: {reference} at byte 11: not a variable of this prompt (it has prompt, response, golden_response") {
		t.Errorf("bad variable: exit %d\n%s", r.code, r.stderr)
	}
	odd := filepath.Join(dir, "odd")
	writeTestFile(t, odd, "judge.txt", "x")
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--judge-prompts", odd)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "judge.txt: not a judge prompt") {
		t.Errorf("unknown kind: exit %d\n%s", r.code, r.stderr)
	}
}

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
	step := func(n int, req, resp string) string { return generateContentStep(n, "weather_agent", req, resp) }
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
	cassettes := filepath.Join(dir, "cassettes")
	writeTestFile(t, cassettes, "zurich.yaml", yaml)
	return cassettes
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
// and criteria given, through the real binary against a scripted judge,
// and returns the prompts the judge was sent, in order.
func judgeADKPrompts(t *testing.T, files map[string]string, criteria string, answer func(prompt string) string) []string {
	t.Helper()
	return judgeADKPromptsWith(t, adkStyleEvalSet, files, criteria, answer)
}

func judgeADKPromptsWith(t *testing.T, evalSet string, files map[string]string, criteria string, answer func(prompt string) string) []string {
	t.Helper()
	dir := testutil.OutDir(t)
	cassettes := adkStyleCassette(t, dir)
	prompts := filepath.Join(dir, "prompts")
	for name, text := range files {
		writeTestFile(t, prompts, name, text)
	}
	evalset := writeTestFile(t, dir, "zurich.evalset.json", evalSet)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {`+criteria+`}}`)
	var mu sync.Mutex
	var asked []string
	up := httptest.NewServer(&fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		return fakejudge.Reply{Text: answer(prompt)}
	}})
	defer up.Close()
	r := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "score", "--cassettes", cassettes, "--expected", evalset,
		"--config", cfg, "--judge-cassettes", filepath.Join(dir, "judge"), "--judge-prompts", prompts, "--judge-base-url", up.URL)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return asked
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

// generateContentStep is one recorded generateContent call of agent as a
// cassette step (indented for an invocation's steps list), with req and
// resp as JSON bodies.
func generateContentStep(n int, agent, req, resp string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`          - step: %d
            agent: %s
            request:
              method: POST
              path: /v1beta/models/gemini-2.5-flash:generateContent
              headers: {Content-Type: application/json}
              body: %s
            response:
              status: 200
              headers: {Content-Type: application/json; charset=UTF-8}
              body: %s
`, n, agent, q(req), q(resp))
}

// diagnosing is a judge that drafts a diagnosis citing the cases its
// prompt names, and keeps the prompts it saw.
type diagnosing struct {
	mu      sync.Mutex
	prompts []string
}

func (d *diagnosing) reply(prompt string, _ int) fakejudge.Reply {
	d.mu.Lock()
	d.prompts = append(d.prompts, prompt)
	d.mu.Unlock()
	if strings.Contains(prompt, "Criterion: state") {
		return fakejudge.Reply{Text: `{"score": 4, "rationale": "The units are kept."}`}
	}
	if !strings.Contains(prompt, "## Failure patterns") {
		return fakejudge.Reply{Status: 400}
	}
	var cited []string
	for _, block := range strings.Split(prompt, "=== Case `")[1:] {
		id, _, _ := strings.Cut(block, "`")
		cited = append(cited, "`"+id+"`")
	}
	return fakejudge.Reply{Text: "## Failure patterns\n\n1. **Wrong city**: the agent looks up the city of the previous turn (" + strings.Join(cited, ", ") +
		").\n\n## Likely causes\n\n- The instruction does not say to use the latest city.\n\n## What to change\n\n- Tell the agent to call get_weather with the city of the current question."}
}

// score --analysis: recorded once through a scripted judge, replayed with
// no key and no judge to the same file byte for byte; the judge was given
// the failed case's criteria, reasons and turns, expected and actual.
func TestScoreAnalysisRecordedOnceReplayedByteIdentical(t *testing.T) {
	t.Parallel()
	run, set, cfg := twoCaseRun(t)
	dir := testutil.OutDir(t)
	judgeDir := filepath.Join(dir, "judge")
	d := &diagnosing{}
	up := httptest.NewServer(&fakejudge.Handler{Script: d.reply})
	recorded, replayed := filepath.Join(dir, "recorded.md"), filepath.Join(dir, "replayed.md")
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--expected", set, "--config", cfg, "--label", "exp_v2", "--judge-cassettes", judgeDir,
			"--analysis", out}, append(extra, run)...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(recorded, "--judge-base-url", up.URL)...)
	up.Close()
	if rec.code != exitFailure || !strings.Contains(rec.stderr, "root-cause analysis of 1 failed case written to "+recorded) || len(d.prompts) != 1 {
		t.Fatalf("record: exit %d, %d judge calls\n%s", rec.code, len(d.prompts), rec.stderr)
	}
	prompt := d.prompts[0]
	for _, want := range []string{"=== Case `london` (session london/1): FAILED", "tool_trajectory_avg_score: score 0.5, threshold 1, FAILED",
		`expected get_weather(city="London"), got get_weather(city="Tokyo")`, "User: And what about Tokyo?",
		`Agent tool calls: get_weather(city="Tokyo")`, `Expected tool calls: get_weather(city="London")`, `run "exp_v2"`, "1 of 2 cases"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the judge's prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "paris_then_tokyo") {
		t.Errorf("a passing case went to the judge:\n%s", prompt)
	}
	report := readFile(t, recorded)
	if !strings.HasPrefix(report, "# Root-cause analysis: weather (exp_v2)\n") || !strings.Contains(report, "(`london`)") ||
		!strings.Contains(report, "## What to change") {
		t.Errorf("report:\n%s", report)
	}

	rep := adkproxy(t, nil, args(replayed)...)
	if rep.code != exitFailure || readFile(t, replayed) != report || !strings.Contains(rep.stderr, "1 calls replayed") {
		t.Errorf("replay: exit %d\n%s\nreport:\n%s", rep.code, rep.stderr, readFile(t, replayed))
	}

	// Nothing failed: a short report, no judge call.
	passed := filepath.Join(dir, "passed.md")
	r0 := adkproxy(t, nil, "score", "--expected", weatherEvalSet, "--judge-cassettes", judgeDir, "--analysis", passed, weatherCassette)
	if got := readFile(t, passed); r0.code != 0 || got != "# Root-cause analysis: weather\n\nNo case failed (1 case scored): nothing to diagnose.\n" {
		t.Errorf("all passed: exit %d\n%s\n%q", r0.code, r0.stderr, got)
	}

	// Without a judge: not written, and the run says why.
	none := filepath.Join(dir, "none.md")
	r := adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--analysis", none, run)
	if _, err := os.Stat(none); err == nil || !strings.Contains(r.stderr, "--analysis "+none+" not written: the report is drafted by the judge model, and no judge was given") {
		t.Errorf("without a judge: exit %d\n%s", r.code, r.stderr)
	}
	// A changed run asks the judge something it was not asked: replay
	// cannot answer, the file is not written, the run fails saying so.
	changed := filepath.Join(dir, "changed.md")
	r = adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--judge-cassettes", judgeDir, "--analysis", changed, run)
	if _, err := os.Stat(changed); err == nil || r.code != exitFailure || !strings.Contains(r.stderr, "--analysis "+changed+" not written") ||
		!strings.Contains(r.stderr, "judge call not recorded") {
		t.Errorf("unrecorded analysis: exit %d\n%s", r.code, r.stderr)
	}
}

// simulate --analysis, on an eval set played against an ADK server with a
// criterion that fails: the same report from the recording and the replay.
// A scale metric sees the session's state at the start and, as the server
// returned it, at the end.
func TestSimulateAnalysis(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	evalset := filepath.Join(dir, "set.evalset.json")
	os.WriteFile(evalset, []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "paris", "conversation": [{"user_content": {"parts": [{"text": "Weather in Paris?"}]}}]}]}`), 0o644)
	cfg := filepath.Join(dir, "test_config.json")
	os.WriteFile(cfg, []byte(`{"adkproxy": {"criteria": {"tool_calls": {"max": 0}},
	  "llm_metrics": {"state_fidelity": {"prompt": "Criterion: state.\nAt the start: {{.State}}\nAt the end: {{.FinalState}}", "threshold": 3}}}}`), 0o644)
	input := filepath.Join(dir, "session_input.json")
	os.WriteFile(input, []byte(`{"app_name": "weather", "user_id": "tester", "state": {"units": "metric"}}`), 0o644)
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()
	d := &diagnosing{}
	up := httptest.NewServer(&fakejudge.Handler{Script: d.reply})
	judgeDir := filepath.Join(dir, "judge")
	args := func(name string, extra ...string) []string {
		return append([]string{"simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--config", cfg, "--session-input", input,
			"--out", filepath.Join(dir, name), "--judge-cassettes", judgeDir, "--analysis", filepath.Join(dir, name+".md")}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args("recorded", "--judge-base-url", up.URL)...)
	up.Close()
	report := readFile(t, filepath.Join(dir, "recorded.md"))
	var statePrompt string
	for _, p := range d.prompts {
		if strings.Contains(p, "Criterion: state") {
			statePrompt = p
		}
	}
	if !strings.Contains(statePrompt, "At the start: {\n  \"units\": \"metric\"\n}") || !strings.Contains(statePrompt, "At the end: {\n") ||
		!strings.Contains(statePrompt[strings.Index(statePrompt, "At the end"):], `"units": "metric"`) {
		t.Errorf("the scale metric's prompt:\n%s", statePrompt)
	}
	if len(d.prompts) != 2 || !strings.Contains(d.prompts[1], "tool_calls: score 1, maximum 0, FAILED") ||
		!strings.HasPrefix(report, "# Root-cause analysis: simulated\n") || !strings.Contains(report, "(`paris`)") {
		t.Fatalf("record: exit %d\n%s\nprompts %q\nreport:\n%s", rec.code, rec.stderr, d.prompts, report)
	}
	if log := readFile(t, filepath.Join(dir, "recorded", "sessions.csv")); !strings.Contains(log, ",4,PASSED,") {
		t.Errorf("sessions.csv lacks the scale metric:\n%s", log)
	}
	rep := adkproxy(t, nil, args("replayed")...)
	if got := readFile(t, filepath.Join(dir, "replayed.md")); got != report {
		t.Errorf("replay: exit %d\n%s\nreport:\n%s", rep.code, rep.stderr, got)
	}
	// No config, no judge: simulate says why there is no report.
	r := adkproxy(t, nil, "simulate", "--server", agent.URL, "--app", "weather", "--evalset", evalset, "--session-input", input, "--out", filepath.Join(dir, "plain"),
		"--analysis", filepath.Join(dir, "plain.md"))
	if r.code != 0 || !strings.Contains(r.stderr, "not written: the report is drafted by the judge model") {
		t.Errorf("without a judge: exit %d\n%s", r.code, r.stderr)
	}
}

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
