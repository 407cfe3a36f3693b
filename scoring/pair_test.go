package scoring

import (
	"reflect"
	"testing"
)

// engSession builds a session whose invocations have these user texts.
func engSession(cassette string, id int, users ...string) Session {
	s := Session{Cassette: cassette, ID: id}
	for _, u := range users {
		s.Invocations = append(s.Invocations, Invocation{UserText: u})
	}
	return s
}

func engExpected(id string, users ...string) ExpectedCase {
	ec := ExpectedCase{ID: id, EvalSetID: "set", File: "f.evalset.json", Invocations: []Invocation{}}
	for _, u := range users {
		ec.Invocations = append(ec.Invocations, Invocation{UserText: u})
	}
	return ec
}

func TestPairByNameThenFirstUserTurn(t *testing.T) {
	sessions := []Session{
		engSession("eval_case_id", 1, "Turn off device_2 in the Bedroom."),
		engSession("kitchen", 1, "What is the status of device_1 in the Kitchen?", "Turn it on."),
		engSession("kitchen", 2, "  What is the status of device_1 in the Kitchen?\n"),
		engSession("multi", 1, "x"),
		engSession("multi", 2, "y"),
		engSession("stray", 1, "hello"),
	}
	exp := &Expected{EvalSetID: "set", Cases: []ExpectedCase{
		engExpected("check_then_turn_on", "What is the status of device_1 in the Kitchen?", "Turn it on."),
		engExpected("eval_case_id", "Turn off device_2 in the Bedroom."),
		engExpected("again", "What is the status of device_1 in the Kitchen?"),
		engExpected("multi/2", "something else"),
		engExpected("multi", "zzz"),
		engExpected("stray", "hello", "and more"),
	}}
	cases, unpaired := Pair(sessions, exp)
	type got struct {
		id, session string
		failure     string
	}
	var gotCases []got
	for _, c := range cases {
		gotCases = append(gotCases, got{c.ID, c.Session.Cassette + "#" + string(rune('0'+c.Session.ID)), c.Failure})
		if len(c.Actual) != len(c.Session.Invocations) || c.EvalSetID != "set" || c.Expected == nil {
			t.Errorf("case %s: %+v", c.ID, c)
		}
	}
	want := []got{
		{"check_then_turn_on", "kitchen#1", ""},
		{"eval_case_id", "eval_case_id#1", ""},
		{"again", "kitchen#2", ""},
		{"multi/2", "multi#2", ""},
		{"stray", "stray#1", `the eval case has 2 invocations, the recorded session stray (cassette "stray", session 1) has 1: invocations pair in order, so the counts must be equal`},
	}
	if !reflect.DeepEqual(gotCases, want) {
		t.Fatalf("cases\n got %+v\nwant %+v", gotCases, want)
	}
	wantUnpaired := []string{
		`eval case "multi" (f.evalset.json): no recorded session: no cassette named "multi" holds a single session, and no other session starts with "zzz"`,
		`session multi/1 (cassette "multi", session 1): no eval case: none has eval_id "multi/1", and none left starts with "x"`,
	}
	if !reflect.DeepEqual(unpaired, wantUnpaired) {
		t.Fatalf("unpaired\n got %q\nwant %q", unpaired, wantUnpaired)
	}
}

func TestPairNamesWinOverTextsWhateverTheOrder(t *testing.T) {
	sessions := []Session{engSession("eval_case_id", 1, "Turn off device_2 in the Bedroom.")}
	exp := &Expected{Cases: []ExpectedCase{
		engExpected("by_text", "Turn off device_2 in the Bedroom."),
		engExpected("eval_case_id", "Turn off device_2 in the Bedroom."),
	}}
	cases, unpaired := Pair(sessions, exp)
	if len(cases) != 1 || cases[0].ID != "eval_case_id" || len(unpaired) != 1 ||
		unpaired[0] != `eval case "by_text" (f.evalset.json): no recorded session: no cassette named "by_text" holds a single session, and no other session starts with "Turn off device_2 in the Bedroom."` {
		t.Fatalf("cases %+v unpaired %q", cases, unpaired)
	}
}

func TestPairWithoutExpectations(t *testing.T) {
	sessions := []Session{engSession("a", 1, "x"), engSession("b", 1, "y"), engSession("b", 3, "z")}
	cases, unpaired := Pair(sessions, nil)
	var ids []string
	for i, c := range cases {
		ids = append(ids, c.ID)
		if c.Expected != nil || c.Session != &sessions[i] {
			t.Errorf("case %+v", c)
		}
	}
	if !reflect.DeepEqual(ids, []string{"a", "b/1", "b/3"}) || unpaired != nil {
		t.Fatalf("ids %v unpaired %v", ids, unpaired)
	}
}

func TestPairScenarioCaseByStartingPrompt(t *testing.T) {
	sessions := []Session{engSession("run", 1, "Roll a 6 sided die.", "Is it prime?")}
	exp := &Expected{Cases: []ExpectedCase{{ID: "scenario_case", Scenario: []byte(`{"startingPrompt":"Roll a 6 sided die.","conversationPlan":"…"}`)}}}
	cases, unpaired := Pair(sessions, exp)
	if len(cases) != 1 || cases[0].Failure != "" || cases[0].Expected != nil || string(cases[0].Scenario) == "" || len(unpaired) != 0 {
		t.Fatalf("cases %+v unpaired %v", cases, unpaired)
	}
}
