package wire

import (
	"reflect"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestStepOfAnInteraction(t *testing.T) {
	x := exchange("/v1beta/interactions",
		`{"model":"m","previous_interaction_id":"v1_a","input":[{"type":"function_result","call_id":"c1","name":"get_weather","result":{"temp_c":18}},{"type":"function_result","call_id":"c3","name":"n","result":7}]}`,
		`{"id":"v1_b","model":"gemini-3","status":"requires_action",
			"outputs":[{"type":"text","text":"Checking."},{"type":"function_call","id":"c2","name":"get_time","arguments":{"city":"Paris"}}],
			"usage":{"total_input_tokens":5,"total_output_tokens":3,"total_tokens":8}}`)
	got := StepOf(x)
	if len(got.ToolResults) != 2 || got.ToolResults[0].ID != "c1" || got.ToolResults[0].Response["temp_c"] != float64(18) || got.ToolResults[1].Response["result"] != float64(7) {
		t.Errorf("tool results %+v", got.ToolResults)
	}
	if want := []ToolCall{{ID: "c2", Name: "get_time", Args: map[string]any{"city": "Paris"}}}; !reflect.DeepEqual(got.ToolCalls, want) {
		t.Errorf("tool calls %+v, want %+v", got.ToolCalls, want)
	}
	if got.Text != "Checking." || got.ModelVersion != "gemini-3" || got.FinishReason != "REQUIRES_ACTION" || got.Usage == nil || *got.Usage != (Usage{Prompt: 5, Candidates: 3, Total: 8}) {
		t.Errorf("step %+v", got)
	}
}

func TestRequestOfAnInteraction(t *testing.T) {
	r, ok := RequestOf(&cassettes.Request{Method: "POST", Path: "/v1beta/interactions", Body: []byte(`{"agent":"a","system_instruction":"Be brief.",
		"input":[{"type":"text","text":"hi"},{"type":"function_call","id":"c","name":"f","arguments":{"x":1}},{"type":"function_result","call_id":"c","name":"f","result":"ok"}],
		"tools":[{"type":"function","name":"f","description":"F.","parameters":{"type":"object"}},{"type":"google_search"}]}`)})
	if !ok || r.Model != "a" || r.System == nil || r.System.Parts[0].Text != "Be brief." || len(r.Contents) != 3 || len(r.Tools) != 1 {
		t.Fatalf("%v %+v", ok, r)
	}
	if r.Contents[1].Role != "model" || r.Contents[1].Parts[0].FunctionCall.Name != "f" || r.Contents[2].Parts[0].FunctionResponse.Response["result"] != "ok" {
		t.Errorf("contents %+v", r.Contents)
	}
	if r, _ := RequestOf(&cassettes.Request{Method: "POST", Path: "/v1beta/interactions", Body: []byte(`{"model":"m","input":"hello"}`)}); len(r.Contents) != 1 || r.Contents[0].Parts[0].Text != "hello" {
		t.Errorf("a text input: %+v", r.Contents)
	}
}
