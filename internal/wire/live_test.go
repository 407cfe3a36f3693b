package wire

import (
	"encoding/json"
	"testing"
)

func TestReadFrame(t *testing.T) {
	m, ok := ReadFrame([]byte(`{"setup":{"model":"models/gemini-live","system_instruction":{"parts":[{"text":"Be brief."}]},"tools":[{"function_declarations":[{"name":"f"}]}]}}`))
	if !ok || m.Setup == nil || m.Setup.Model != "models/gemini-live" || m.Setup.System == nil || m.Setup.System.Parts[0].Text != "Be brief." || len(m.Setup.Tools) != 1 || m.Setup.Tools[0].Name != "f" {
		t.Fatalf("setup %v %+v", ok, m.Setup)
	}
	m, _ = ReadFrame([]byte(`{"client_content":{"turns":[{"role":"user","parts":[{"text":"hi"}]}],"turn_complete":true}}`))
	if cc := m.ClientContent; cc == nil || !cc.TurnComplete || len(cc.Turns) != 1 || cc.Turns[0].Parts[0].Text != "hi" {
		t.Fatalf("client content %+v", cc)
	}
	m, _ = ReadFrame([]byte(`{"realtimeInput":{"audio":{"data":"AA=="}}}`))
	if ri := m.RealtimeInput; ri == nil || !ri.Media || ri.Text != "" {
		t.Fatalf("realtime input %+v", ri)
	}
	m, _ = ReadFrame([]byte(`{"tool_response":{"function_responses":[{"id":"c","name":"f","response":{"snake_key":1}}]}}`))
	if len(m.ToolResponse) != 1 || m.ToolResponse[0].Response["snake_key"] != float64(1) {
		t.Fatalf("tool response %+v", m.ToolResponse)
	}
	m, _ = ReadFrame([]byte(`{"serverContent":{"modelTurn":{"parts":[{"text":"Sunny."}]},"outputTranscription":{"text":"Sunny"},"turnComplete":true},"usageMetadata":{"totalTokenCount":9}}`))
	if sc := m.ServerContent; sc == nil || len(sc.Parts) != 1 || sc.Parts[0].Text != "Sunny." || sc.OutputTranscription != "Sunny" || !sc.TurnComplete || m.Usage == nil || m.Usage.Total != 9 {
		t.Fatalf("server content %+v %+v", sc, m.Usage)
	}
	m, _ = ReadFrame([]byte(`{"toolCall":{"functionCalls":[{"id":"c","name":"f","args":{"a_b":1}}]}}`))
	if len(m.ToolCall) != 1 || m.ToolCall[0].Args["a_b"] != float64(1) {
		t.Fatalf("tool call %+v", m.ToolCall)
	}
	for _, bad := range []string{"", "null", "[1]", "not json"} {
		if _, ok := ReadFrame([]byte(bad)); ok {
			t.Errorf("%q read as a message", bad)
		}
	}
}

func TestCamelFrameKeepsPayloadKeys(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"tool_response":{"function_responses":[{"name":"f","response":{"temp_c":18}}]}}`), &v); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(CamelFrame(v))
	if want := `{"toolResponse":{"functionResponses":[{"name":"f","response":{"temp_c":18}}]}}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
