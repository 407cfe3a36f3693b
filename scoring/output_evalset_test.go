package scoring

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestOutputEvalSet(t *testing.T) {
	inv := Invocation{ID: "c/1/1", UserText: "hi",
		ToolCalls:             []cassettes.ToolCall{{ID: "adk-123", Name: "f", Args: map[string]any{"x": 1.0}}, {Name: "g"}},
		ToolResults:           []cassettes.ToolResult{{ID: "adk-123", Name: "f", Response: map[string]any{"ok": true}}},
		IntermediateResponses: []AuthoredText{{Author: "helper", Text: "working"}},
		FinalResponse:         "done"}
	sessions := []Session{
		{Cassette: "c", ID: 1, Invocations: []Invocation{inv}},
		{Cassette: "c", ID: 3, Invocations: []Invocation{{ID: "c/3/1", UserText: "quiet"}}},
		{Cassette: "suite/one", ID: 1, Invocations: []Invocation{inv, inv}},
	}
	var b bytes.Buffer
	if err := WriteEvalSet(&b, "set_1", sessions); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "adk-123") {
		t.Errorf("call ids exported:\n%s", b.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["eval_set_id"] != "set_1" || doc["name"] != "set_1" || doc["description"] != nil || doc["creation_timestamp"] != 0.0 {
		t.Errorf("header %v", doc)
	}
	cases := doc["eval_cases"].([]any)
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.(map[string]any)["eval_id"].(string))
		if v, ok := c.(map[string]any)["session_input"]; ok {
			t.Errorf("session_input %v written: ADK's local eval-set files leave an unset one out", v)
		}
	}
	// Several sessions in one cassette are told apart by session id.
	if !reflect.DeepEqual(ids, []string{"c/1", "c/3", "suite/one"}) {
		t.Errorf("ids %v", ids)
	}
	want := map[string]any{
		"invocation_id":  "c/1/1",
		"user_content":   map[string]any{"parts": []any{map[string]any{"text": "hi"}}, "role": "user"},
		"final_response": map[string]any{"parts": []any{map[string]any{"text": "done"}}, "role": "model"},
		"intermediate_data": map[string]any{
			"tool_uses":              []any{map[string]any{"name": "f", "args": map[string]any{"x": 1.0}}, map[string]any{"name": "g", "args": nil}},
			"tool_responses":         []any{map[string]any{"name": "f", "response": map[string]any{"ok": true}}},
			"intermediate_responses": []any{[]any{"helper", []any{map[string]any{"text": "working"}}}},
		},
		"creation_timestamp": 0.0,
	}
	if got := outAt(t, doc, "eval_cases", 0, "conversation", 0); !reflect.DeepEqual(got, want) {
		t.Errorf("invocation\n%v\nwant\n%v", got, want)
	}
	// No final answer: null, as ADK writes an absent one.
	if got := outAt(t, doc, "eval_cases", 1, "conversation", 0, "final_response"); got != nil {
		t.Errorf("final_response %v", got)
	}
	// The same sessions give the same bytes.
	var again bytes.Buffer
	WriteEvalSet(&again, "set_1", sessions)
	if again.String() != b.String() {
		t.Error("export is not deterministic")
	}
	// The caller's sessions are not changed (ids dropped from copies only).
	if sessions[0].Invocations[0].ToolCalls[0].ID != "adk-123" {
		t.Error("WriteEvalSet changed its input")
	}
}
