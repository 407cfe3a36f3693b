// transfer_to_agent's response, as ADK records it: the agent taking over
// never receives it as a function response (ADK relays it to that agent as
// "For context:" text), so the recorded traffic of the invocation may lack
// it, while ADK's eval data holds the function-response event of every
// tool it ran.

package scoring

import "github.com/adkproxy/adkproxy/cassettes"

// transferTool is ADK's tool for handing the conversation to another agent.
const transferTool = "transfer_to_agent"

// transferResults rebuilds inv.ToolResults from its steps so that each
// transfer_to_agent call of the invocation has its response, right after
// the results received before the call: the one recorded, else {} (what
// ADK's transfer tool returns). A transfer response whose call was made in
// an earlier invocation (an agent's own history, sent again) is left out.
func transferResults(inv *Invocation) {
	calls := map[string]bool{} // ids of this invocation's transfer calls
	for _, c := range inv.ToolCalls {
		if c.Name == transferTool && c.ID != "" {
			calls[c.ID] = true
		}
	}
	answered := map[string]bool{}
	unnamed := 0 // transfer responses without an id, answering calls without one in order
	for _, r := range inv.ToolResults {
		switch {
		case r.Name != transferTool:
		case r.ID == "":
			unnamed++
		case calls[r.ID]:
			answered[r.ID] = true
		}
	}
	results := make([]cassettes.ToolResult, 0, len(inv.ToolResults))
	for _, s := range inv.Steps {
		for _, r := range s.ToolResults {
			if r.Name == transferTool && r.ID != "" && !calls[r.ID] {
				continue // an earlier invocation's handoff
			}
			results = append(results, r)
		}
		for _, c := range s.ToolCalls {
			if c.Name != transferTool {
				continue
			}
			if c.ID == "" && unnamed > 0 {
				unnamed--
				continue
			}
			if c.ID == "" || !answered[c.ID] {
				results = append(results, cassettes.ToolResult{ID: c.ID, Name: transferTool, Response: map[string]any{}})
			}
		}
	}
	inv.ToolResults = results
}
