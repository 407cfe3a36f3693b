package conversation_test

import (
	"fmt"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
)

// weatherCall is a model call asking about city at step 0, or at step 2
// carrying the result of get_weather.
func weatherCall(t *testing.T, city string, step int) *conversation.Call {
	t.Helper()
	body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":"weather in %s?"}]}`, city)
	if step == 2 {
		body += `,{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"` + city + `"}}}]}` +
			`,{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":21}}}]}`
	}
	c, ok := analyze("/v1beta/models/m:generateContent", []byte(body+`]}`))
	if !ok {
		t.Fatal("not a model call")
	}
	return c
}

// TestFileToolFollowsUnansweredCalls: a tool exchange goes to the step that
// most recently made a function call its agent has not answered, to the
// invocation its header names, or nowhere once every call is answered.
func TestFileToolFollowsUnansweredCalls(t *testing.T) {
	org := conversation.NewOrganizer()
	if _, ok := org.FileTool(""); ok {
		t.Fatal("filed a tool exchange before any model call")
	}
	get := []conversation.FunctionCall{{Name: "get_weather", Args: `{}`}}
	paris, tp := org.Place(weatherCall(t, "Paris", 0), "inv-paris")
	if _, ok := org.FileTool(""); ok {
		t.Fatal("filed under a step that made no function call yet")
	}
	org.Calls(tp, get)
	lyon, tl := org.Place(weatherCall(t, "Lyon", 0), "")
	org.Calls(tl, get)
	at := func(tag string, want *cassettes.Place) {
		t.Helper()
		got, ok := org.FileTool(tag)
		switch {
		case want == nil && ok:
			t.Errorf("FileTool(%q) = %+v, want other", tag, got)
		case want != nil && (!ok || got != *want):
			t.Errorf("FileTool(%q) = %+v (%v), want %+v", tag, got, ok, *want)
		}
	}
	at("", &lyon)                            // the most recent unanswered call
	at("inv-paris", &paris)                  // the header wins
	at("no-such-tag", &lyon)                 // an unknown tag falls back to the rule
	org.Place(weatherCall(t, "Lyon", 2), "") // Lyon's agent answers its call
	at("", &paris)
	org.Place(weatherCall(t, "Paris", 2), "inv-paris")
	at("", nil)
	p2 := paris
	p2.Step = 1
	at("inv-paris", &p2) // a tagged invocation keeps its latest step
}

// TestFileToolAfterAChatToolCall: a chat completion whose answer calls a
// tool leaves that call pending like a Gemini functionCall, so the HTTP
// tool exchange that follows is filed under its step, and the next chat
// step (carrying the tool message) answers it.
func TestFileToolAfterAChatToolCall(t *testing.T) {
	const path = "/v1beta/openai/chat/completions"
	ask := `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"weather in Paris?"}`
	first, ok := analyze(path, []byte(ask+`]}`))
	if !ok {
		t.Fatal("a chat completion is not a model call")
	}
	org := conversation.NewOrganizer()
	place, token := org.Place(first, "")
	answer := `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`
	calls := conversation.ResponseCalls([]byte(answer))
	if len(calls) != 1 || calls[0].Name != "get_weather" || calls[0].Args != `{"city":"Paris"}` {
		t.Fatalf("ResponseCalls of a chat tool call = %+v", calls)
	}
	org.Calls(token, calls)
	if got, ok := org.FileTool(""); !ok || got != place {
		t.Fatalf("FileTool after a chat tool call = %+v (%v), want the step %+v", got, ok, place)
	}
	second, ok := analyze(path, []byte(ask+`,{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},`+
		`{"role":"tool","tool_call_id":"call_1","content":"{\"temp_c\":21}"}]}`))
	if !ok {
		t.Fatal("the second chat completion is not a model call")
	}
	next, _ := org.Place(second, "")
	if next.Session != place.Session || next.Invocation != place.Invocation || next.Step != 1 {
		t.Fatalf("the step answering the tool call is at %+v, want step 1 of %+v", next, place)
	}
	if got, ok := org.FileTool(""); ok {
		t.Errorf("FileTool after the call was answered = %+v, want other", got)
	}
}
