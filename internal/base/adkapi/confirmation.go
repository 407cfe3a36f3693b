// ADK's tool confirmation flow on the wire: the adk_request_confirmation
// calls an agent makes for tools that require confirmation, and the user
// message that answers them.

package adkapi

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"
)

// ConfirmationCall is the function ADK calls to ask the user to confirm a
// tool call (a tool with require_confirmation).
const ConfirmationCall = "adk_request_confirmation"

// ConfirmationRequests are the adk_request_confirmation calls of events.
func ConfirmationRequests(events []Event) []*genai.FunctionCall {
	var out []*genai.FunctionCall
	for i := range events {
		for _, fc := range events[i].FunctionCalls() {
			if fc.Name == ConfirmationCall {
				out = append(out, fc)
			}
		}
	}
	return out
}

// ConfirmationAnswer is the user message answering calls: approve or
// refuse each, as the ToolConfirmation object ({"confirmed": true}) or, with
// asJSONString, as ADK's other accepted shape, that object as a JSON string
// under "response".
func ConfirmationAnswer(calls []*genai.FunctionCall, approve, asJSONString bool) *genai.Content {
	return ConfirmationAnswerWithPayload(calls, approve, asJSONString, nil)
}

// ConfirmationAnswerWithPayload is ConfirmationAnswer with the
// ToolConfirmation's payload (ADK hands it to the tool), when not nil.
func ConfirmationAnswerWithPayload(calls []*genai.FunctionCall, approve, asJSONString bool, payload any) *genai.Content {
	msg := &genai.Content{Role: genai.RoleUser}
	for _, fc := range calls {
		resp := map[string]any{"confirmed": approve}
		if payload != nil {
			resp["payload"] = payload
		}
		if asJSONString {
			b, _ := json.Marshal(resp)
			resp = map[string]any{"response": string(b)}
		}
		msg.Parts = append(msg.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: ConfirmationCall, Response: resp}})
	}
	return msg
}

// IsRefusal says whether response is what ADK sends the model in place of
// tool's result when the user refused the tool's confirmation: ADK Python
// and ADK-JS answer {"error": "This tool call is rejected."}, ADK Go
// {"error": "error tool \"NAME\" call is rejected"}. ADK keeps the
// adk_request_confirmation call and its answer out of every model request,
// so on the model wire a refusal is this result and an approval is the
// tool's own.
func IsRefusal(tool string, response map[string]any) bool {
	msg, ok := response["error"].(string)
	if !ok || len(response) != 1 {
		return false
	}
	return msg == "This tool call is rejected." || msg == fmt.Sprintf("error tool %q call is rejected", tool)
}
