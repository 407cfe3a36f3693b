// The shipped weather example scored as the score command scores it
// (cassettes, eval set and config loaded, sessions paired, evaluated,
// written in each format): what each format says. Moved here from the cmd
// suite, which keeps the command's flags, exit statuses and stderr.

package scoring_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/joshdk/go-junit"
)

var (
	exampleDir      = filepath.Join(testutil.RepoRoot(), "examples", "weather")
	exampleEvalSet  = filepath.Join(exampleDir, "weather.evalset.json")
	exampleConfig   = filepath.Join(exampleDir, "eval_config.json")
	exampleCassette = filepath.Join(exampleDir, "cassettes")
)

// scoreExample scores the example's cassettes against expected (none when
// "") with config (the default criteria when ""), as the score command does.
func scoreExample(t *testing.T, expected, config string) *scoring.Result {
	t.Helper()
	_, loaded, err := cassettes.LoadPath(exampleCassette)
	if err != nil {
		t.Fatal(err)
	}
	cfg := scoring.DefaultConfig()
	if config != "" {
		if cfg, err = scoring.LoadConfig(config); err != nil {
			t.Fatal(err)
		}
	}
	var exp *scoring.Expected
	if expected != "" {
		if exp, err = scoring.LoadExpected(expected); err != nil {
			t.Fatal(err)
		}
	}
	cases, unpaired := scoring.PairRuns(scoring.SessionsOf(loaded), exp, 1)
	result := scoring.Evaluate(context.Background(), cfg, cases)
	if result.EvalSetID == "" && exp != nil {
		result.EvalSetID = exp.EvalSetID
	}
	result.Unpaired = append(result.Unpaired, unpaired...)
	return result
}

func written(t *testing.T, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func tableOf(t *testing.T, r *scoring.Result) string {
	return written(t, func(b *bytes.Buffer) error { return scoring.WriteTable(b, r) })
}

func markdownOf(t *testing.T, r *scoring.Result) string {
	return written(t, func(b *bytes.Buffer) error { return scoring.WriteMarkdown(b, r) })
}

// The example passes every criterion of its config, and the table says so.
func TestWeatherExamplePasses(t *testing.T) {
	t.Parallel()
	table := tableOf(t, scoreExample(t, exampleEvalSet, exampleConfig))
	for _, want := range []string{
		"EVAL SET weather\n",
		"CASE paris_then_tokyo  PASSED  (session default/1, 2 invocations)\n",
		"tool_trajectory_avg_score", "response_match_score", "trajectory_f1", "total_tokens", "cost_usd", "latency_invocation_ms",
		"≤ 5000",
		"\nPASSED: 1 of 1 case passed; 6 of 6 criteria passed\n",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "FAILED") || strings.Contains(table, "NOT_EVALUATED") {
		t.Errorf("table:\n%s", table)
	}
}

// A changed expectation fails the case, and the table says which invocation
// differs and how, right below the failing metric.
func TestWeatherExampleFailureExplainsItself(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(exampleEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	london := strings.Replace(string(data), `"args": {"city": "Tokyo"}`, `"args": {"city": "London"}`, 1)
	if london == string(data) {
		t.Fatal("the demo eval set no longer expects Tokyo")
	}
	path := filepath.Join(t.TempDir(), "london.evalset.json")
	os.WriteFile(path, []byte(london), 0o644)
	result := scoreExample(t, path, "")
	table := tableOf(t, result)
	lines := strings.Split(table, "\n")
	reason := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "tool_trajectory_avg_score") && strings.Contains(l, "FAILED") {
			reason = i + 1
		}
	}
	if reason < 0 || reason >= len(lines) || !strings.Contains(lines[reason], "invocation 2") ||
		!strings.Contains(lines[reason], "London") || !strings.Contains(lines[reason], "Tokyo") {
		t.Errorf("no reason below the failing metric:\n%s", table)
	}
	if !strings.Contains(table, "\nFAILED: 0 of 1 case passed (1 FAILED)") {
		t.Errorf("table:\n%s", table)
	}
	if md := markdownOf(t, result); !strings.HasPrefix(md, "## ❌ adkproxy score: weather") {
		t.Errorf("markdown:\n%s", md)
	}
	if s := scoring.Summary(result); !strings.HasPrefix(s, "FAILED: 0 of 1 case passed") {
		t.Errorf("summary %q", s)
	}
}

// Each format of a passing run: ADK's EvalSetResult as one JSON object,
// a JUnit suite of a test per criterion, a markdown table.
func TestWeatherExampleInEveryFormat(t *testing.T) {
	t.Parallel()
	result := scoreExample(t, exampleEvalSet, exampleConfig)
	if s := scoring.Summary(result); s != "PASSED: 1 of 1 case passed; 6 of 6 criteria passed" {
		t.Errorf("summary %q", s)
	}
	data := []byte(written(t, func(b *bytes.Buffer) error { return scoring.WriteJSON(b, result) }))
	var doc struct {
		EvalSetResultID string `json:"eval_set_result_id"`
		EvalSetID       string `json:"eval_set_id"`
		Cases           []struct {
			EvalID  string `json:"eval_id"`
			Status  int    `json:"final_eval_status"`
			Session string `json:"session_id"`
			Overall []struct {
				Metric string `json:"metric_name"`
				Status int    `json:"eval_status"`
			} `json:"overall_eval_metric_results"`
			PerInvocation []struct {
				Actual   map[string]any `json:"actual_invocation"`
				Expected map[string]any `json:"expected_invocation"`
			} `json:"eval_metric_result_per_invocation"`
		} `json:"eval_case_results"`
	}
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &doc) != nil {
		t.Fatalf("not a plain EvalSetResult object:\n%s", data)
	}
	if doc.EvalSetID != "weather" || !strings.HasPrefix(doc.EvalSetResultID, "adkproxy_weather_") || len(doc.Cases) != 1 ||
		doc.Cases[0].EvalID != "paris_then_tokyo" || doc.Cases[0].Status != 1 || doc.Cases[0].Session != "default/1" ||
		len(doc.Cases[0].Overall) != 6 || len(doc.Cases[0].PerInvocation) != 2 || doc.Cases[0].PerInvocation[1].Expected["invocation_id"] != "e-tokyo" {
		t.Fatalf("result %+v", doc)
	}
	for _, m := range doc.Cases[0].Overall {
		if m.Status != 1 {
			t.Errorf("%s: status %d", m.Metric, m.Status)
		}
	}

	xml := written(t, func(b *bytes.Buffer) error { return scoring.WriteJUnit(b, result) })
	suites, err := junit.Ingest([]byte(xml))
	if err != nil || len(suites) != 1 {
		t.Fatalf("junit: %v %v", err, suites)
	}
	suites[0].Aggregate()
	if s := suites[0]; s.Name != "weather" || s.Totals.Tests != 6 || s.Totals.Passed != 6 || s.Tests[0].Name != "paris_then_tokyo / tool_trajectory_avg_score" {
		t.Errorf("junit suite %+v", s)
	}

	if md := markdownOf(t, result); !strings.HasPrefix(md, "## ✅ adkproxy score: weather\n") || !strings.Contains(md, "| `trajectory_f1` | 1 | 1 | ✅ PASSED |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// An eval case no session answers is listed as unpaired and decides
// nothing by itself.
func TestWeatherExampleUnpairedCase(t *testing.T) {
	t.Parallel()
	data, _ := os.ReadFile(exampleEvalSet)
	var set map[string]any
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	cases := set["eval_cases"].([]any)
	extra, _ := json.Marshal(cases[0])
	var ghost map[string]any
	json.Unmarshal(extra, &ghost)
	ghost["eval_id"] = "ghost"
	ghost["conversation"].([]any)[0].(map[string]any)["user_content"] = map[string]any{"parts": []any{map[string]any{"text": "Never asked"}}, "role": "user"}
	set["eval_cases"] = append(cases, ghost)
	data, _ = json.Marshal(set)
	path := filepath.Join(t.TempDir(), "two.evalset.json")
	os.WriteFile(path, data, 0o644)

	result := scoreExample(t, path, "")
	if table := tableOf(t, result); !strings.Contains(table, "UNPAIRED (not scored):\n  eval case \"ghost\"") || !strings.HasPrefix(scoring.Summary(result), "PASSED") {
		t.Errorf("summary %q, table:\n%s", scoring.Summary(result), table)
	}
}

// Without expectations ADK's default criteria cannot be judged: the case
// is NOT_EVALUATED, and so is the run.
func TestWeatherExampleWithoutExpectations(t *testing.T) {
	t.Parallel()
	table := tableOf(t, scoreExample(t, "", ""))
	if !strings.Contains(table, "CASE default  NOT_EVALUATED") ||
		!strings.Contains(table, "\nNOT_EVALUATED: 0 of 1 case passed (1 NOT_EVALUATED); 0 of 2 criteria passed (2 NOT_EVALUATED)\n") {
		t.Errorf("table:\n%s", table)
	}
}

type exportedSet struct {
	EvalSetID string `json:"eval_set_id"`
	Name      string `json:"name"`
	EvalCases []struct {
		EvalID       string `json:"eval_id"`
		SessionInput any    `json:"session_input"`
		Conversation []struct {
			InvocationID string `json:"invocation_id"`
			UserContent  struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
				Role string `json:"role"`
			} `json:"user_content"`
			FinalResponse *struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
				Role string `json:"role"`
			} `json:"final_response"`
			IntermediateData struct {
				ToolUses              []map[string]any `json:"tool_uses"`
				ToolResponses         []map[string]any `json:"tool_responses"`
				IntermediateResponses [][]any          `json:"intermediate_responses"`
			} `json:"intermediate_data"`
		} `json:"conversation"`
	} `json:"eval_cases"`
}

// The example's one session exported as ADK's eval set: one case of two
// invocations with their tool uses and responses, snake_case keys as ADK
// writes them, unset fields left out.
func TestWeatherExampleExportedAsEvalSet(t *testing.T) {
	t.Parallel()
	_, loaded, err := cassettes.LoadPath(exampleCassette)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := scoring.WriteEvalSet(&b, "cassettes", scoring.SessionsOf(loaded)); err != nil {
		t.Fatal(err)
	}
	stdout := b.String()
	var set exportedSet
	if err := json.Unmarshal([]byte(stdout), &set); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	// One case for the one session.
	if set.EvalSetID != "cassettes" || set.Name != "cassettes" || len(set.EvalCases) != 1 || set.EvalCases[0].EvalID != "default" ||
		set.EvalCases[0].SessionInput != nil || len(set.EvalCases[0].Conversation) != 2 {
		t.Fatalf("eval set %+v", set)
	}
	paris := set.EvalCases[0].Conversation[0]
	if paris.UserContent.Role != "user" || paris.UserContent.Parts[0].Text != "What is the weather in Paris?" ||
		paris.FinalResponse == nil || paris.FinalResponse.Role != "model" || paris.FinalResponse.Parts[0].Text != "It is 18°C in Paris, clear." {
		t.Errorf("invocation 1 %+v", paris)
	}
	if want := []map[string]any{{"name": "get_weather", "args": map[string]any{"city": "Paris"}}}; !reflect.DeepEqual(paris.IntermediateData.ToolUses, want) {
		t.Errorf("tool_uses %v", paris.IntermediateData.ToolUses)
	}
	if want := []map[string]any{{"name": "get_weather", "response": map[string]any{"city": "Paris", "sky": "clear", "temp_c": 18.0}}}; !reflect.DeepEqual(paris.IntermediateData.ToolResponses, want) {
		t.Errorf("tool_responses %v", paris.IntermediateData.ToolResponses)
	}
	if paris.IntermediateData.IntermediateResponses == nil || len(paris.IntermediateData.IntermediateResponses) != 0 {
		t.Errorf("intermediate_responses %v", paris.IntermediateData.IntermediateResponses)
	}
	// snake_case keys as ADK writes them, nothing camelCase.
	for _, key := range []string{`"eval_set_id"`, `"eval_cases"`, `"eval_id"`, `"conversation"`, `"invocation_id"`,
		`"user_content"`, `"final_response"`, `"intermediate_data"`, `"tool_uses"`, `"tool_responses"`, `"intermediate_responses"`, `"creation_timestamp"`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("no %s in\n%s", key, stdout)
		}
	}
	// Unset fields left out, as ADK's local eval-set files leave them.
	if strings.Contains(stdout, "session_input") || strings.Contains(stdout, "description") {
		t.Errorf("unset session_input or description written in\n%s", stdout)
	}
	if strings.Contains(stdout, "evalSetId") || strings.Contains(stdout, "userContent") {
		t.Errorf("camelCase keys in\n%s", stdout)
	}
}
