// ADK's tool confirmation in eval sets: the adk_request_confirmation call
// is ADK's, not the model's, so the tool trajectories leave it out.

package scoring

import "github.com/adkproxy/adkproxy/cassettes"

// confirmationTool is the function ADK calls to ask the user to confirm a
// tool call (a tool with require_confirmation).
const confirmationTool = "adk_request_confirmation"

// modelCalls are calls without ADK's adk_request_confirmation calls. ADK's
// eval data keeps them (an eval set saved from a session has one after the
// call it asks about), but ADK leaves them out of every model request, so a
// recorded run never holds one; their arguments also carry the function
// call id of the call they confirm, which differs every run, so ADK's own
// comparison could never match them.
func modelCalls(calls []cassettes.ToolCall) []cassettes.ToolCall {
	out := calls[:0:0]
	for _, c := range calls {
		if c.Name != confirmationTool {
			out = append(out, c)
		}
	}
	if len(out) == len(calls) {
		return calls
	}
	return out
}
