package conversation

import (
	"fmt"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestInteractionChainsGroupLikeConversations: a chain's user turns are
// invocations of one session, function results continue their invocation
// as steps, and a new chain is a new session.
func TestInteractionChainsGroupLikeConversations(t *testing.T) {
	o := NewOrganizer()
	calls := []struct{ body, id string }{
		{`{"model":"m","input":"What is the weather in Paris?","tools":[{"type":"function","name":"get_weather"}]}`, "v1_a"},
		{`{"model":"m","input":[{"type":"function_result","call_id":"c1","result":"sunny"}],"previous_interaction_id":"v1_a","tools":[{"type":"function","name":"get_weather"}]}`, "v1_b"},
		{`{"model":"m","input":[{"role":"user","content":[{"type":"text","text":"And in Rome?"}]}],"previous_interaction_id":"v1_b","tools":[{"type":"function","name":"get_weather"}]}`, "v1_c"},
		{`{"model":"m","input":"Hello"}`, "v1_d"},
		{`{"model":"m","input":"Unknown chain","previous_interaction_id":"v1_zzz"}`, "v1_e"},
	}
	want := []string{"1/1/0 What is the weather in Paris?", "1/1/1 What is the weather in Paris?", "1/2/0 And in Rome?", "2/1/0 Hello", "3/1/0 Unknown chain"}
	for i, c := range calls {
		call, ok := o.AnalyzeInteraction("/v1beta/interactions", []byte(c.body))
		if !ok {
			t.Fatalf("call %d not read as an interaction", i+1)
		}
		place, _ := o.Place(call, "")
		if got := fmt.Sprintf("%d/%d/%d %s", place.Session, place.Invocation, place.Step, place.User); got != want[i] {
			t.Errorf("call %d placed at %s, want %s", i+1, got, want[i])
		}
		o.Interacted(&cassettes.Exchange{
			Request:  cassettes.Request{Method: "POST", Path: "/v1beta/interactions", Body: []byte(c.body)},
			Response: cassettes.Response{Status: 200, Body: []byte(`{"id":"` + c.id + `"}`)},
		})
	}
	if _, ok := o.AnalyzeInteraction("/v1beta/interactions/v1_a", nil); ok {
		t.Error("a get of an interaction was read as a call")
	}
}
