package wire

import (
	"encoding/json"
	"testing"
)

func decoded(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestUserTurns(t *testing.T) {
	for _, c := range []struct {
		content string
		text    string
		user    bool
		answers bool
	}{
		{`{"role":"user","parts":[{"text":"Hi."},{"text":"hm","thought":true},{"text":"There."}]}`, "Hi.\nThere.", true, false},
		{`{"parts":[{"text":"no role"}]}`, "no role", true, false},
		{`{"role":"model","parts":[{"text":"answer"}]}`, "", false, false},
		{`{"role":"user","parts":[{"text":"For context: [agent] said x"}]}`, "", false, false},
		{`{"role":"user","parts":[{"functionResponse":{"name":"f"}}]}`, "", false, true},
		{`{"role":"user","parts":[{"functionResponse":{"name":"f"}},{"text":"and"}]}`, "", false, false},
		{`{"role":"user","parts":[]}`, "", false, false},
	} {
		v := decoded(t, c.content)
		if text, ok := UserText(v); text != c.text || ok != c.user {
			t.Errorf("%s: user text %q %v", c.content, text, ok)
		}
		if got := OnlyFunctionResponses(v); got != c.answers {
			t.Errorf("%s: only function responses %v", c.content, got)
		}
	}
}

func TestAgentName(t *testing.T) {
	si := decoded(t, `{"parts":[{"text":"You are an agent. Your internal name is \"weather_agent\"."}]}`)
	if got := AgentName(nil, si); got != "weather_agent" {
		t.Errorf("from the instruction: %q", got)
	}
	if got := AgentName(decoded(t, `{"adk_agent_name":"root"}`), si); got != "root" {
		t.Errorf("from the label: %q", got)
	}
	if got := AgentName(nil, "your internal name is bare"); got != "bare" {
		t.Errorf("from a bare string: %q", got)
	}
}

func TestEachResponseCall(t *testing.T) {
	var got []string
	EachResponseCall([]byte(`{"candidates":[{"content":{"parts":[{"text":"x"},{"functionCall":{"id":"1","name":"f","args":{"a":1}}}]}},{"content":{"parts":[{"functionCall":{"name":"g"}}]}}]}`),
		func(id, name string, args json.RawMessage) { got = append(got, id+"/"+name+"/"+string(args)) })
	if len(got) != 2 || got[0] != `1/f/{"a":1}` || got[1] != "/g/" {
		t.Errorf("%q", got)
	}
	EachResponseCall([]byte(`{"candidates":[{"content":{"parts":[{"text":"no call"}]}}]}`), func(string, string, json.RawMessage) { t.Error("a call in an answer with none") })
}

// FuzzWireResponseCalls: any payload reads without a panic, and one with
// no "functionCall" key gives no call.
func FuzzWireResponseCalls(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}}}]}}]}`))
	f.Add([]byte(`{"candidates":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n := 0
		EachResponseCall(body, func(string, string, json.RawMessage) { n++ })
		if n > 0 && !json.Valid(body) {
			t.Fatalf("%q: calls in a body that is not JSON", body)
		}
	})
}
