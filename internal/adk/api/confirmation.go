// ADK's tool confirmation flow on the wire: the adk_request_confirmation
// calls an agent makes for tools that require confirmation, and the user
// message that answers them.

package api

import (
	"encoding/json"

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
	msg := &genai.Content{Role: genai.RoleUser}
	for _, fc := range calls {
		resp := map[string]any{"confirmed": approve}
		if asJSONString {
			b, _ := json.Marshal(resp)
			resp = map[string]any{"response": string(b)}
		}
		msg.Parts = append(msg.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: ConfirmationCall, Response: resp}})
	}
	return msg
}
