// A request's setup, whatever its dialect, and its tools split.

package wire

import (
	"encoding/json"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestSetupOfGenerateContentAndChat(t *testing.T) {
	gemini := SetupOf(&cassettes.Request{Path: "/v1beta/models/gemini-2.5-flash:generateContent", Body: []byte(`{
		"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
		"systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Use tools."}]},
		"generationConfig": {"temperature": 0.10},
		"tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Weather."}]}, {"googleSearch": {}}]}`)})
	if gemini.Model != "gemini-2.5-flash" || gemini.SystemInstruction != "Be brief.\nUse tools." ||
		gemini.GenerationConfig["temperature"] != json.Number("0.10") || len(gemini.Tools) != 2 {
		t.Errorf("generateContent setup %+v", gemini)
	}
	chat := SetupOf(&cassettes.Request{Method: "POST", Path: "/v1beta/openai/chat/completions", Body: []byte(`{
		"model": "gemini-2.5-flash", "temperature": 0.5,
		"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
		"tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}}}]}`)})
	if chat.Model != "gemini-2.5-flash" || chat.SystemInstruction != "Be brief." || chat.GenerationConfig["temperature"] != json.Number("0.5") {
		t.Errorf("chat setup %+v", chat)
	}
	for name, s := range map[string]Setup{"generateContent": gemini, "chat": chat} {
		functions, _ := FunctionTools(s.Tools)
		if len(functions) != 1 || functions[0].Name != "get_weather" || functions[0].Value.(map[string]any)["description"] != "Weather." {
			t.Errorf("%s: functions %+v", name, functions)
		}
	}
	if _, builtIn := FunctionTools(gemini.Tools); len(builtIn) != 1 || builtIn[0].Name != "googleSearch" {
		t.Errorf("built-in tools %+v", builtIn)
	}
	if s := SetupOf(&cassettes.Request{Path: "/v1beta/models/m:generateContent", Body: []byte("not json")}); s.Model != "m" || s.Tools != nil {
		t.Errorf("a body that is not JSON: %+v", s)
	}
}
