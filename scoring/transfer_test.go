package scoring

import (
	"encoding/json"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/httprr"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// A transfer_to_agent call is in tool_uses, so its response is in
// tool_responses, right after the responses that came before the call, as
// ADK records the function-response event of every tool it runs: the
// agent taking over never sees it as a function response (ADK relays it
// as "For context:" text), so it is filled in.
func TestTransferResponsesAreExported(t *testing.T) {
	file := testutil.SharedDir(t, "fixtures", "gemini-traffic") + "/agent_llmagent__TestDelegation_09_ChatPeerTransferAcrossSiblings.httprr"
	xs, err := httprr.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &cassettes.Cassette{Name: "transfer"}
	for _, x := range xs {
		c.Exchanges = append(c.Exchanges, &cassettes.Exchange{
			Request:  cassettes.Request{Method: x.Request.Method, Path: x.Request.URL.Path, Body: x.Request.Body},
			Response: cassettes.Response{Status: x.Response.Status, Body: x.Response.Body},
		})
	}
	sessions := SessionsOf(map[string]*cassettes.Cassette{"transfer": c})
	transfers := 0
	for _, s := range sessions {
		for _, inv := range s.Invocations {
			out := outADKInvocation(&inv, true)
			var uses, responses []string
			for _, u := range out.IntermediateData.ToolUses {
				uses = append(uses, u.Name)
			}
			for _, r := range out.IntermediateData.ToolResponses {
				responses = append(responses, r.Name)
			}
			for i, u := range out.IntermediateData.ToolUses {
				if u.Name != "transfer_to_agent" {
					continue
				}
				transfers++
				found := false
				for _, r := range out.IntermediateData.ToolResponses {
					found = found || r.Name == u.Name && r.ID == u.ID
				}
				if !found {
					data, _ := json.Marshal(out.IntermediateData)
					t.Errorf("invocation %s: tool_uses[%d] transfer_to_agent (id %q) has no response: %s", inv.ID, i, u.ID, data)
				}
			}
			if len(uses) != len(responses) {
				t.Errorf("invocation %s: tool_uses %v, tool_responses %v", inv.ID, uses, responses)
			}
		}
	}
	if transfers == 0 {
		t.Fatal("the fixture has no transfer_to_agent call")
	}
}
