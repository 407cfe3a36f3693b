package scoring

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/eval/scenarios"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestLoadHomeAutomationEvalSet(t *testing.T) {
	exp, err := LoadExpected(filepath.Join("testdata", "evalsets", "home_automation.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	if exp.EvalSetID != "home_automation_agent_light_on_off_set" || len(exp.Cases) != 2 {
		t.Fatalf("eval set %q, %d cases", exp.EvalSetID, len(exp.Cases))
	}
	c := exp.Cases[0]
	if c.ID != "eval_case_id" || c.EvalSetID != exp.EvalSetID || !strings.HasSuffix(c.File, "home_automation.evalset.json") || len(c.Invocations) != 1 {
		t.Fatalf("case %+v", c)
	}
	inv := c.Invocations[0]
	want := Invocation{
		ID:            "b7982664-0ab6-47cc-ab13-326656afdf75",
		UserText:      "Turn off device_2 in the Bedroom.",
		FinalResponse: "I have set the device_2 status to off.",
		ToolCalls: []cassettes.ToolCall{{Name: "set_device_info", Args: map[string]any{
			"location": "Bedroom", "device_id": "device_2", "status": "OFF"}}},
	}
	if !reflect.DeepEqual(inv, want) {
		t.Fatalf("invocation\n got %#v\nwant %#v", inv, want)
	}
	second := exp.Cases[1].Invocations
	if len(second) != 2 || second[0].ToolCalls[0].ID != "adk-0b8c" || second[0].ToolResults[0].Response["status"] != "OFF" ||
		!reflect.DeepEqual(second[0].IntermediateResponses, []AuthoredText{{Author: "home_automation_agent", Text: "Let me check."}}) ||
		second[1].ToolCalls[0].Args["status"] != "ON" {
		t.Fatalf("second case %+v", second)
	}
}

func TestLoadDiceRollerEvalSetCamelCaseInvocationEvents(t *testing.T) {
	exp, err := LoadExpected(filepath.Join("testdata", "evalsets", "dice_roller.evalset.json"))
	if err != nil {
		t.Fatal(err)
	}
	if exp.EvalSetID != "hello_world_dice" || len(exp.Cases) != 2 {
		t.Fatalf("eval set %+v", exp)
	}
	conv := exp.Cases[0].Invocations
	if len(conv) != 2 || conv[0].UserText != "What can you do?" || len(conv[0].ToolCalls) != 0 || conv[0].ID != "d1" {
		t.Fatalf("first invocation %+v", conv)
	}
	// Form B: every function_call part of every event, in order.
	inv := conv[1]
	wantCalls := []cassettes.ToolCall{
		{ID: "adk-1", Name: "roll_die", Args: map[string]any{"sides": json.Number("10")}},
		{Name: "roll_die", Args: map[string]any{"sides": json.Number("10")}},
		{Name: "check_prime", Args: map[string]any{"nums": []any{json.Number("9")}}},
	}
	if !reflect.DeepEqual(inv.ToolCalls, wantCalls) {
		t.Fatalf("calls %#v", inv.ToolCalls)
	}
	if len(inv.ToolResults) != 3 || inv.ToolResults[2].Response["result"] != "No prime numbers found." {
		t.Fatalf("results %+v", inv.ToolResults)
	}
	// final_response: "\n".join of the text parts.
	if inv.FinalResponse != "I rolled a 10 sided die twice. The first roll was 6 and the second roll was 5.\n9 is not a prime number." {
		t.Fatalf("final response %q", inv.FinalResponse)
	}
	if !reflect.DeepEqual(inv.IntermediateResponses, []AuthoredText{{Author: "hello_world_agent", Text: "Rolling again."}}) {
		t.Fatalf("intermediate %+v", inv.IntermediateResponses)
	}
	sc := exp.Cases[1]
	if sc.ID != "scenario_case" || sc.Invocations != nil || !strings.Contains(string(sc.Scenario), `"startingPrompt":"Roll a 6 sided die."`) {
		t.Fatalf("scenario case %+v %s", sc, sc.Scenario)
	}
}

func TestLoadLegacyTestFiles(t *testing.T) {
	exp, err := LoadExpected(filepath.Join("testdata", "legacy", "simple.test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if exp.EvalSetID != "simple" || len(exp.Cases) != 1 || exp.Cases[0].ID != "simple" || len(exp.Cases[0].Invocations) != 2 {
		t.Fatalf("turn list %+v", exp)
	}
	inv := exp.Cases[0].Invocations[1]
	if inv.UserText != "What's the status of device_3 in the Kitchen?" || inv.FinalResponse != "Status of device_3 is ON." ||
		!reflect.DeepEqual(inv.ToolCalls, []cassettes.ToolCall{{Name: "get_device_info", Args: map[string]any{"device_id": "device_3"}}}) {
		t.Fatalf("turn %+v", inv)
	}

	exp, err = LoadExpected(filepath.Join("testdata", "legacy", "old_cases.test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Cases) != 1 || exp.Cases[0].ID != "roll_once" {
		t.Fatalf("old cases %+v", exp)
	}
	inv = exp.Cases[0].Invocations[0]
	if inv.ToolCalls[0].Name != "roll_die" || inv.ToolCalls[0].Args["sides"] != json.Number("6") ||
		inv.IntermediateResponses[0] != (AuthoredText{Author: "dice_agent", Text: "Rolling."}) || inv.FinalResponse != "I rolled a 4." {
		t.Fatalf("old case turn %+v", inv)
	}

	exp, err = LoadExpected(filepath.Join("testdata", "legacy", "cases_list.test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Cases) != 1 || exp.Cases[0].ID != "bare_case" || exp.Cases[0].Invocations[0].FinalResponse != "Yes, 7 is prime." {
		t.Fatalf("bare cases %+v", exp)
	}

	// The folder: every *.test.json, in path order; different ids → the folder's name.
	exp, err = LoadExpected(filepath.Join("testdata", "legacy"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range exp.Cases {
		ids = append(ids, c.ID)
	}
	if exp.EvalSetID != "legacy" || !reflect.DeepEqual(ids, []string{"bare_case", "roll_once", "simple"}) {
		t.Fatalf("folder %q %v", exp.EvalSetID, ids)
	}
}

func TestLoadExpectedFolderOfEvalSets(t *testing.T) {
	exp, err := LoadExpected(filepath.Join("testdata", "evalsets"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range exp.Cases {
		ids = append(ids, c.EvalSetID+":"+c.ID)
	}
	want := []string{"hello_world_dice:roll_and_check", "hello_world_dice:scenario_case",
		"home_automation_agent_light_on_off_set:eval_case_id", "home_automation_agent_light_on_off_set:check_then_turn_on"}
	if exp.EvalSetID != "evalsets" || !reflect.DeepEqual(ids, want) {
		t.Fatalf("%q %v", exp.EvalSetID, ids)
	}
}

func TestLoadExpectedGoldenRun(t *testing.T) {
	exp, err := LoadExpected(filepath.Join(testutil.RepoRoot(), "examples", "weather", "cassettes"))
	if err != nil {
		t.Fatal(err)
	}
	if exp.EvalSetID != "cassettes" || len(exp.Cases) != 1 || exp.Cases[0].ID != "default" || len(exp.Cases[0].Invocations) != 2 {
		t.Fatalf("golden %+v", exp)
	}
	if inv := exp.Cases[0].Invocations[1]; inv.UserText != "And what about Tokyo?" || inv.ToolCalls[0].Args["city"] != "Tokyo" {
		t.Fatalf("golden invocation %+v", inv)
	}

	one, err := LoadExpected(filepath.Join(testutil.RepoRoot(), "examples", "weather", "cassettes", "default.yaml"))
	if err != nil || one.EvalSetID != "default" || len(one.Cases) != 1 || one.Cases[0].ID != "default" || len(one.Cases[0].Invocations) != 2 {
		t.Fatalf("one cassette: %v %+v", err, one)
	}

	if _, err := LoadExpected(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no eval set files") {
		t.Fatalf("empty folder: %v", err)
	}
	if _, err := LoadExpected(filepath.Join("testdata", "nothing-here")); err == nil || !strings.Contains(err.Error(), "nothing-here") {
		t.Fatalf("missing path: %v", err)
	}
}

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
		{`"a string"`, `x.evalset.json: expected an EvalSet object (or, in older *.test.json files, a list), got the string "a string"`},
		{"{\"eval_set_id\": \"s\",\n \"eval_cases\": [}", `x.evalset.json:2:17: invalid JSON: invalid character '}' looking for beginning of value`},
		{`{"eval_set_id": "s", "eval_cases": [`, `x.evalset.json: invalid JSON: unexpected end of file`},
		{`{"eval_set_id": "s", "eval_cases": []} {}`, `x.evalset.json:1:41: invalid JSON: unexpected data after the JSON document`},
	} {
		_, err := ParseEvalSet("x.evalset.json", []byte(tc.json))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.json, err, tc.want)
		}
	}
}

func TestParseEvalSetKeepsCaseRubrics(t *testing.T) {
	exp, err := ParseEvalSet("x.json", []byte(`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Polite."}}],
	  "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p", "user_persona": "EXPERT"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(exp.Cases[0].Rubrics); got != `[{"rubric_content":{"text_property":"Polite."},"rubric_id":"r"}]` {
		t.Errorf("case rubrics %s", got)
	}
	cases, _ := Pair([]Session{{Cassette: "a", Invocations: []Invocation{{UserText: "hi"}}}}, exp)
	if len(cases) != 1 || string(cases[0].Rubrics) != string(exp.Cases[0].Rubrics) || cases[0].Scenario == nil {
		t.Errorf("paired case %+v", cases)
	}
}

func TestParseEvalSetKeepsNullArgsApartFromEmpty(t *testing.T) {
	exp, err := ParseEvalSet("x.json", []byte(`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [
	  {"user_content": {"parts": [{"text": "hi"}]}, "intermediate_data": {"tool_uses": [{"name": "f"}, {"name": "g", "args": null}, {"name": "h", "args": {}}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	calls := exp.Cases[0].Invocations[0].ToolCalls
	if calls[0].Args != nil || calls[1].Args != nil || calls[2].Args == nil || len(calls[2].Args) != 0 {
		t.Fatalf("calls %#v", calls)
	}
}

// A case's session_input (snake or camel case) is read with the case; a
// bad one names the case's field.
func TestParseEvalSetSessionInput(t *testing.T) {
	exp, err := ParseEvalSet("set.evalset.json", []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "c1", "session_input": {"app_name": "app", "user_id": "alice", "state": {"budget": 100}},
	  "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]},
	 {"eval_id": "c2", "sessionInput": {"appName": "app", "userId": "bob"},
	  "conversation_scenario": {"starting_prompt": "hello", "conversation_plan": "ask"}},
	 {"eval_id": "c3", "conversation": [{"user_content": {"parts": [{"text": "hi"}]}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	input := func(raw json.RawMessage) *scenarios.SessionInput {
		if raw == nil {
			return nil
		}
		si, err := scenarios.ParseSessionInput("kept", raw)
		if err != nil {
			t.Fatalf("the session_input kept does not read back: %v: %s", err, raw)
		}
		return &si
	}
	c1, c2, c3 := input(exp.Cases[0].SessionInput), input(exp.Cases[1].SessionInput), input(exp.Cases[2].SessionInput)
	if c1 == nil || c1.UserID != "alice" || c1.AppName != "app" || fmt.Sprint(c1.State["budget"]) != "100" {
		t.Errorf("c1 session input = %+v", c1)
	}
	if c2 == nil || c2.UserID != "bob" || c2.State == nil {
		t.Errorf("c2 session input = %+v", c2)
	}
	if c3 != nil {
		t.Errorf("c3 has no session input, got %+v", c3)
	}
	_, err = ParseEvalSet("bad.evalset.json", []byte(`{"eval_set_id": "set", "eval_cases": [
	 {"eval_id": "c1", "session_input": {"app_name": "app"}, "conversation": []}]}`))
	if err == nil || !strings.Contains(err.Error(), "bad.evalset.json: eval_cases[0].session_input") || !strings.Contains(err.Error(), "user id") {
		t.Errorf("a session input without user_id: %v", err)
	}
}
