package matcher_test

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// A chat completion on Gemini's OpenAI-compatible endpoint, second step:
// the arguments and the tool's result are JSON inside strings.
const chatBody = `{"model":"gemini-2.5-flash","messages":[
	{"role":"system","content":"You are a weather assistant."},
	{"role":"user","content":"Weather in Paris?"},
	{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"C\"}"}}]},
	{"role":"tool","tool_call_id":"call_1","content":"{\"temp\":18,\"sky\":\"sunny\"}"}],
 "tools":[
	{"type":"function","function":{"name":"get_time","description":"Local time.","parameters":{"type":"object"}}},
	{"type":"function","function":{"name":"get_weather","description":"Current weather for a city.","parameters":{"type":"object"}}}]}`

func chatReq(body string) *cassettes.Request {
	return &cassettes.Request{Method: "POST", Path: "/v1beta/openai/chat/completions", Body: []byte(body)}
}

// TestChatDiffsAddressByName: a change is placed by role and by function
// name, and JSON inside strings is diffed field by field.
func TestChatDiffsAddressByName(t *testing.T) {
	m := matcher.Default()
	for _, c := range []struct{ from, to, path string }{
		{`"Current weather for a city."`, `"The weather."`, "tools[get_weather].function.description"},
		{`"Weather in Paris?"`, `"Weather in Rome?"`, "messages[user].content"},
		{`\"city\":\"Paris\"`, `\"city\":\"Rome\"`, "messages[assistant].tool_calls[get_weather].function.arguments.city"},
		{`\"temp\":18`, `\"temp\":21`, "messages[tool].content.temp"},
		{`"You are a weather assistant."`, `"You are terse."`, "messages[system].content"},
	} {
		got := chatReq(strings.Replace(chatBody, c.from, c.to, 1))
		if m.Fingerprint(got) == m.Fingerprint(chatReq(chatBody)) {
			t.Errorf("%s: the change does not change the fingerprint", c.path)
		}
		diffs := m.Diff(chatReq(chatBody), got)
		if len(diffs) != 1 || diffs[0].Path != c.path {
			t.Errorf("changing %s: %v, want one difference at %s", c.from, diffs, c.path)
		}
	}
	// A renamed tool is one tool removed and one added, by name.
	diffs := m.Diff(chatReq(chatBody), chatReq(strings.Replace(chatBody, `"name":"get_time"`, `"name":"local_time"`, 1)))
	var paths []string
	for _, d := range diffs {
		paths = append(paths, d.Path)
	}
	if strings.Join(paths, " ") != "tools[get_time] tools[local_time]" {
		t.Errorf("a renamed tool: %v", paths)
	}
	// Call ids are the server's, echoed from replayed answers: not matched.
	if m.Fingerprint(chatReq(strings.ReplaceAll(chatBody, "call_1", "call_9"))) != m.Fingerprint(chatReq(chatBody)) {
		t.Error("a changed call id changes the fingerprint")
	}
}

// TestChatSecondUserMessage: with two user messages, the second is
// messages[user#2].
func TestChatSecondUserMessage(t *testing.T) {
	two := `{"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"ok"},{"role":"user","content":"two"}]}`
	diffs := matcher.Default().Diff(chatReq(two), chatReq(strings.Replace(two, `"two"`, `"three"`, 1)))
	if len(diffs) != 1 || diffs[0].Path != "messages[user#2].content" {
		t.Errorf("%v", diffs)
	}
}

// TestChatIgnoreByName: --ignore takes the paths diffs give.
func TestChatIgnoreByName(t *testing.T) {
	m, err := matcher.New("tools[get_weather].function.description", "messages[user#1].content")
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(strings.Replace(chatBody, `"Current weather for a city."`, `"x"`, 1), `"Weather in Paris?"`, `"y"`, 1)
	if m.Fingerprint(chatReq(changed)) != m.Fingerprint(chatReq(chatBody)) {
		t.Errorf("ignored fields still count: %v", m.Diff(chatReq(chatBody), chatReq(changed)))
	}
}
