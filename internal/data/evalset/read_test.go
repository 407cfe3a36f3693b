package evalset_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestParseEvalSetErrorsNameTheJSONPath(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"eval_cases": []}`, `x.evalset.json: eval_set_id: missing: an EvalSet needs eval_set_id`},
		{`{"eval_set_id": "s"}`, `x.evalset.json: eval_cases: missing: an EvalSet needs eval_cases`},
		{`{"eval_set_id": "s", "eval_cases": [{"conversation": []}]}`, `x.evalset.json: eval_cases[0].eval_id: missing: an eval case needs eval_id`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": []}, {"eval_id": "b", "conversation": [{"final_response": null}]}]}`,
			`x.evalset.json: eval_cases[1].conversation[0].user_content: missing: an invocation needs user_content`},
		{`{"evalSetId": "s", "evalCases": [{"evalId": "a", "conversation": [{"userContent": {"parts": [{"text": 3}]}}]}]}`,
			`x.evalset.json: evalCases[0].conversation[0].userContent.parts[0].text: expected a string, got 3`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [{"user_content": {"parts": []}, "intermediate_data": {"tool_uses": [{"name": "f", "args": [1]}]}}]}]}`,
			`x.evalset.json: eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args: expected an object, got a list`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [{"user_content": {"parts": []}, "intermediate_data": {"intermediate_responses": [["agent"]]}}]}]}`,
			`x.evalset.json: eval_cases[0].conversation[0].intermediate_data.intermediate_responses[0]: expected [author, [parts…]], got a list`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [{"user_content": {"parts": []}, "intermediate_data": {"invocation_events": [{"content": {"parts": [{"function_call": {"name": 1}}]}}]}}]}]}`,
			`x.evalset.json: eval_cases[0].conversation[0].intermediate_data.invocation_events[0].content.parts[0].function_call.name: expected a string, got 1`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [{"user_content": {"role": 7, "parts": []}}]}]}`,
			`x.evalset.json: eval_cases[0].conversation[0].user_content.role: expected a string, got 7`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [{"user_content": {"parts": []}, "rubrics": {"polite": 1}}]}]}`,
			`x.evalset.json: eval_cases[0].conversation[0].rubrics: expected a list, got an object`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [], "conversation_scenario": {"starting_prompt": "hi"}}]}`,
			`x.evalset.json: eval_cases[0]: has both conversation and conversation_scenario; an eval case has exactly one`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a"}]}`, `x.evalset.json: eval_cases[0]: has neither conversation nor conversation_scenario`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation_scenario": {"starting_prompt": "hi"}}]}`,
			`x.evalset.json: eval_cases[0].conversation_scenario.conversation_plan: missing: a scenario needs the plan the simulated user follows`},
		{`{"eval_set_id": "s", "evalCases": [{"evalId": "a", "conversationScenario": {"startingPrompt": "hi", "conversationPlan": "p", "userPersona": "GURU"}}]}`,
			`x.evalset.json: evalCases[0].conversationScenario.userPersona: unknown persona id "GURU" (pre-built: EXPERT, NOVICE, EVALUATOR); give a custom persona as an object {"id", "description", "behaviors"}`},
		{`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "rubrics": {}, "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p"}}]}`,
			`x.evalset.json: eval_cases[0].rubrics: expected a list, got an object`},
		{`[{"query": "hi"}, {"reference": "no query"}]`, `x.evalset.json: [1].query: missing: a turn needs query`},
		{`[{"query": "hi", "expected_tool_use": [{"tool_name": "f", "tool_input": "x"}]}]`, `x.evalset.json: [0].expected_tool_use[0].tool_input: expected an object, got the string "x"`},
		{`[{"name": "c", "data": [{"query": 1}]}]`, `x.evalset.json: [0].data[0].query: expected a string, got 1`},
		{`"a string"`, `x.evalset.json: expected an EvalSet object (or, in older *.test.json files, a list), got the string "a string"`},
		{"{\"eval_set_id\": \"s\",\n \"eval_cases\": [}", `x.evalset.json:2:17: invalid JSON: invalid character '}' looking for beginning of value`},
		{`{"eval_set_id": "s", "eval_cases": [`, `x.evalset.json: invalid JSON: unexpected end of file`},
		{`{"eval_set_id": "s", "eval_cases": []} {}`, `x.evalset.json:1:41: invalid JSON: unexpected data after the JSON document`},
	} {
		_, err := evalset.ParseEvalSet("x.evalset.json", []byte(tc.json))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.json, err, tc.want)
		}
	}
}

func TestParseEvalSetKeepsNullArgsApartFromEmpty(t *testing.T) {
	set, err := evalset.ParseEvalSet("x.json", []byte(`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [
	  {"user_content": {"parts": [{"text": "hi"}]}, "intermediate_data": {"tool_uses": [{"name": "f"}, {"name": "g", "args": null}, {"name": "h", "args": {}}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	calls := set.EvalCases[0].Conversation[0].IntermediateData.ToolUses
	if calls[0].Args != nil || calls[1].Args != nil || calls[2].Args == nil || len(calls[2].Args) != 0 {
		t.Fatalf("calls %#v", calls)
	}
}

// Rubrics, of a case and of an invocation, are kept as JSON (keys sorted).
func TestParseEvalSetKeepsRubrics(t *testing.T) {
	set, err := evalset.ParseEvalSet("x.json", []byte(`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Polite."}}],
	  "conversation": [{"user_content": {"parts": [{"text": "hi"}]}, "rubrics": [{"rubricId": "polite", "rubricContent": {"textProperty": "Is polite."}}]},
	    {"user_content": {"parts": [{"text": "bye"}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := set.EvalCases[0]
	if got := string(c.Rubrics); got != `[{"rubric_content":{"text_property":"Polite."},"rubric_id":"r"}]` {
		t.Errorf("case rubrics %s", got)
	}
	if got := string(c.Conversation[0].Rubrics); got != `[{"rubricContent":{"textProperty":"Is polite."},"rubricId":"polite"}]` || c.Conversation[1].Rubrics != nil {
		t.Errorf("invocation rubrics %s / %s", got, c.Conversation[1].Rubrics)
	}
}

// A case's session_input (snake or camel case) is read with the case; a
// bad one names the case's field.
func TestParseEvalSetSessionInput(t *testing.T) {
	set, err := evalset.ParseEvalSet("set.evalset.json", []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "c1", "session_input": {"app_name": "app", "user_id": "alice", "state": {"budget": 100}},
	  "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]},
	 {"eval_id": "c2", "sessionInput": {"appName": "app", "userId": "bob"},
	  "conversation_scenario": {"starting_prompt": "hello", "conversation_plan": "ask"}},
	 {"eval_id": "c3", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	input := func(v any) *scenarios.SessionInput {
		if v == nil {
			return nil
		}
		raw, ok := v.(json.RawMessage)
		if !ok {
			t.Fatalf("session_input read as %T, want json.RawMessage", v)
		}
		si, err := scenarios.ParseSessionInput("kept", raw)
		if err != nil {
			t.Fatalf("the session_input kept does not read back: %v: %s", err, raw)
		}
		return &si
	}
	c1, c2, c3 := input(set.EvalCases[0].SessionInput), input(set.EvalCases[1].SessionInput), input(set.EvalCases[2].SessionInput)
	if c1 == nil || c1.UserID != "alice" || c1.AppName != "app" || fmt.Sprint(c1.State["budget"]) != "100" {
		t.Errorf("c1 session input = %+v", c1)
	}
	if c2 == nil || c2.UserID != "bob" || c2.State == nil {
		t.Errorf("c2 session input = %+v", c2)
	}
	if c3 != nil {
		t.Errorf("c3 has no session input, got %+v", c3)
	}
	_, err = evalset.ParseEvalSet("bad.evalset.json", []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "c1", "session_input": {"app_name": "app"}, "conversation": []}]}`))
	if err == nil || !strings.Contains(err.Error(), "bad.evalset.json: eval_cases[0].session_input") || !strings.Contains(err.Error(), "user id") {
		t.Errorf("a session input without user_id: %v", err)
	}
}

// Both forms of intermediate data read into their own fields: the
// documented one's lists, newer ADK's events with every part.
func TestParseEvalSetIntermediateDataForms(t *testing.T) {
	set, err := evalset.Load(filepath.Join(testutil.RepoRoot(), "scoring", "testdata", "evalsets", "dice_roller.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 1 || set[0].EvalSetID != "hello_world_dice" || len(set[0].EvalCases) != 2 || !strings.HasSuffix(set[0].File, "dice_roller.evalset.json") {
		t.Fatalf("eval sets %+v", set)
	}
	inv := set[0].EvalCases[0].Conversation[1]
	events := inv.IntermediateData.Events
	var calls []cassettes.ToolCall
	for _, e := range events {
		for _, p := range e.Content.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, *p.FunctionCall)
			}
		}
	}
	want := []cassettes.ToolCall{
		{ID: "adk-1", Name: "roll_die", Args: map[string]any{"sides": json.Number("10")}},
		{Name: "roll_die", Args: map[string]any{"sides": json.Number("10")}},
		{Name: "check_prime", Args: map[string]any{"nums": []any{json.Number("9")}}},
	}
	if !reflect.DeepEqual(calls, want) || inv.IntermediateData.ToolUses != nil {
		t.Fatalf("calls of the events %#v", calls)
	}
	if got := inv.FinalResponse.Text(); got != "I rolled a 10 sided die twice. The first roll was 6 and the second roll was 5.\n9 is not a prime number." {
		t.Errorf("final response %q", got)
	}
	if sc := set[0].EvalCases[1]; sc.Conversation != nil || !strings.Contains(string(evalset.RawJSON(sc.Scenario)), `"startingPrompt":"Roll a 6 sided die."`) {
		t.Errorf("scenario case %+v", sc)
	}

	home, err := evalset.ReadFile(filepath.Join(testutil.RepoRoot(), "scoring", "testdata", "evalsets", "home_automation.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := home.EvalCases[1].Conversation[0].IntermediateData
	if d.Events != nil || len(d.ToolUses) != 1 || d.ToolUses[0].ID != "adk-0b8c" || d.ToolResponses[0].Response["status"] != "OFF" ||
		len(d.IntermediateResponses) != 1 || d.IntermediateResponses[0].Author != "home_automation_agent" || d.IntermediateResponses[0].Parts[0].Text != "Let me check." {
		t.Errorf("documented form %+v", d)
	}
}

// The list formats of older ADK releases read as eval sets named after
// the file: the turns become invocations of text contents.
func TestParseEvalSetLegacyLists(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "scoring", "testdata", "legacy")
	simple, err := evalset.ReadFile(filepath.Join(dir, "simple.test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if simple.EvalSetID != "simple" || len(simple.EvalCases) != 1 || simple.EvalCases[0].EvalID != "simple" || len(simple.EvalCases[0].Conversation) != 2 {
		t.Fatalf("turn list %+v", simple)
	}
	inv := simple.EvalCases[0].Conversation[1]
	if inv.UserContent.Text() != "What's the status of device_3 in the Kitchen?" || inv.FinalResponse.Text() != "Status of device_3 is ON." ||
		!reflect.DeepEqual(inv.IntermediateData.ToolUses, []cassettes.ToolCall{{Name: "get_device_info", Args: map[string]any{"device_id": "device_3"}}}) {
		t.Fatalf("turn %+v", inv)
	}
	old, err := evalset.ReadFile(filepath.Join(dir, "old_cases.test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(old.EvalCases) != 1 || old.EvalCases[0].EvalID != "roll_once" {
		t.Fatalf("old cases %+v", old)
	}
	ir := old.EvalCases[0].Conversation[0].IntermediateData.IntermediateResponses
	if len(ir) != 1 || ir[0].Author != "dice_agent" || ir[0].Parts[0].Text != "Rolling." {
		t.Errorf("old case's intermediate responses %+v", ir)
	}
	sets, err := evalset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range sets {
		ids = append(ids, s.EvalSetID+":"+s.EvalCases[0].EvalID)
	}
	if want := []string{"cases_list:bare_case", "old_cases:roll_once", "simple:simple"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("the folder read as %v, want %v", ids, want)
	}
}

func TestLoadSelected(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(), "scoring", "testdata", "evalsets")
	sets, err := evalset.LoadSelected(dir + ":check_then_turn_on,roll_and_check")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range sets {
		for _, c := range s.EvalCases {
			ids = append(ids, c.EvalID)
		}
	}
	if want := []string{"roll_and_check", "check_then_turn_on"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("selected %v, want %v", ids, want)
	}
	file := filepath.Join(dir, "dice_roller.evalset.json")
	if _, err := evalset.LoadSelected(file + ":nope"); err == nil || err.Error() != file+`: no eval case "nope" (its eval_ids: roll_and_check, scenario_case)` {
		t.Errorf("an unknown id: %v", err)
	}
	if _, err := evalset.LoadSelected(file + ":"); err == nil || !strings.Contains(err.Error(), "no eval case id after the colon") {
		t.Errorf("no id: %v", err)
	}
	if _, err := evalset.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no eval set files") {
		t.Errorf("an empty folder: %v", err)
	}
}

// Every eval set in the repository and the shared fixtures reads, writes
// and reads again as it was.
func TestEvalSetsRoundTrip(t *testing.T) {
	root := testutil.RepoRoot()
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
		min  int
	}{
		{"scoring testdata", func(*testing.T) string { return filepath.Join(root, "scoring", "testdata") }, 6},
		{"examples", func(*testing.T) string { return filepath.Join(root, "examples") }, 2},
		{"shared fixtures", func(t *testing.T) string { return testutil.SharedDir(t, "fixtures") }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := evalset.Files(tc.dir(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) < tc.min {
				t.Fatalf("%d eval set files found, want %d or more: %v", len(files), tc.min, files)
			}
			for _, f := range files {
				roundTrip(t, f)
			}
		})
	}
}

func roundTrip(t *testing.T, file string) {
	t.Helper()
	first, err := evalset.ReadFile(file)
	if err != nil {
		t.Error(err)
		return
	}
	b, err := textfmt.IndentedJSON(first)
	if err != nil {
		t.Fatal(err)
	}
	again, err := evalset.ParseEvalSet(first.File, b)
	if err != nil {
		t.Errorf("%s written does not read back: %v\n%s", file, err, b)
		return
	}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("%s changed on the round trip:\nread  %+v\nagain %+v", file, first, again)
	}
}

func FuzzParseEvalSet(f *testing.F) {
	for _, dir := range []string{"evalsets", "legacy"} {
		files, _ := evalset.Files(filepath.Join(testutil.RepoRoot(), "scoring", "testdata", dir))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`{"evalSetId": "s", "evalCases": [{"evalId": "a", "conversation": [{"userContent": {"parts": [{"text": "hi"}]}, "intermediateData": {"invocationEvents": [{"author": "x"}]}}]}]}`))
	f.Add([]byte(`[{"query": "q", "reference": null, "expected_tool_use": [{"tool_name": "t"}]}]`))
	f.Add([]byte(`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "rubrics": [{"rubric_id": "r"}], "session_input": {"app_name": "x", "user_id": "u"},
	  "conversation": [{"user_content": {"parts": [{"text": "hi", "function_call": {"name": "f", "args": {}}}]}, "rubrics": [1], "final_response": {"parts": null}}]},
	  {"eval_id": "b", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := evalset.ParseEvalSet("f.evalset.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.evalset.json") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		// What was read writes, and reads back the same.
		b, err := textfmt.IndentedJSON(set)
		if err != nil {
			t.Fatalf("%+v does not write: %v", set, err)
		}
		again, err := evalset.ParseEvalSet("f.evalset.json", b)
		if err != nil {
			t.Fatalf("written does not read back: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(set, again) {
			t.Fatalf("changed on the round trip:\nread  %+v\nagain %+v\n%s", set, again, b)
		}
	})
}
