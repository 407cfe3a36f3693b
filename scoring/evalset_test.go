package scoring

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
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

func TestEvalSetCaseRubricsReachThePairedCase(t *testing.T) {
	exp, err := parseEvalSet("x.json", []byte(`{"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Polite."}}],
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

// parseEvalSet is what LoadExpected makes of one eval set file's data.
func parseEvalSet(name string, data []byte) (*Expected, error) {
	set, err := evalset.ParseEvalSet(name, data)
	if err != nil {
		return nil, err
	}
	return &Expected{EvalSetID: set.EvalSetID, Cases: expectedCases(set)}, nil
}
