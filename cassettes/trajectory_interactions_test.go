package cassettes

import (
	"reflect"
	"testing"
)

func TestTrajectoryOfAnInteraction(t *testing.T) {
	x := &Exchange{
		Request: Request{Method: "POST", Path: "/v1beta/interactions",
			Body: []byte(`{"model":"m","previous_interaction_id":"v1_a","input":[{"type":"function_result","call_id":"c1","name":"get_weather","result":{"temp_c":18}}]}`)},
		Response: Response{Status: 200, Body: []byte(`{"id":"v1_b","model":"gemini-3","status":"requires_action",
			"outputs":[{"type":"text","text":"Checking."},{"type":"function_call","id":"c2","name":"get_time","arguments":{"city":"Paris"}}],
			"usage":{"total_input_tokens":5,"total_output_tokens":3,"total_tokens":8}}`)},
	}
	got := TrajectoryOf(x)
	if len(got.ToolResults) != 1 || got.ToolResults[0].ID != "c1" || got.ToolResults[0].Response["temp_c"] != float64(18) {
		t.Errorf("tool results %+v", got.ToolResults)
	}
	if want := []ToolCall{{ID: "c2", Name: "get_time", Args: map[string]any{"city": "Paris"}}}; !reflect.DeepEqual(got.ToolCalls, want) {
		t.Errorf("tool calls %+v, want %+v", got.ToolCalls, want)
	}
	if got.Text != "Checking." || got.ModelVersion != "gemini-3" || got.FinishReason != "REQUIRES_ACTION" || got.Usage == nil || got.Usage.TotalTokenCount != 8 {
		t.Errorf("trajectory %+v", got)
	}
}
