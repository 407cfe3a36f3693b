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
