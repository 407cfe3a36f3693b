// Answering ADK's tool confirmation requests (adk_request_confirmation)
// with a scripted decision.

package drive

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/adk/api"
)

// ConfirmationCall is the function ADK calls to ask the user to confirm a
// tool call (a tool with require_confirmation).
const ConfirmationCall = "adk_request_confirmation"

// Confirmation is how a Driver answers ADK's tool confirmation requests.
type Confirmation struct {
	// Approve is the decision: true approves the tool call, false refuses it.
	Approve bool
	// AsJSONString sends ADK's other accepted shape: the ToolConfirmation as
	// a JSON string under "response" ({"response": "{\"confirmed\": true}"})
	// instead of the object itself ({"confirmed": true}).
	AsJSONString bool
}

// ParseConfirmation reads --confirm (approve or refuse) and
// --confirm-shape (object or json-string).
func ParseConfirmation(decision, shape string) (*Confirmation, error) {
	c := &Confirmation{}
	switch decision {
	case "":
		return nil, nil
	case "approve":
		c.Approve = true
	case "refuse":
	default:
		return nil, fmt.Errorf("%q: want approve or refuse", decision)
	}
	switch shape {
	case "", "object":
	case "json-string":
		c.AsJSONString = true
	default:
		return nil, fmt.Errorf("%q: want object or json-string", shape)
	}
	return c, nil
}

// confirmationRequests are the adk_request_confirmation calls of events.
func confirmationRequests(events []api.Event) []*genai.FunctionCall {
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

// answer is the user message answering calls with c's decision.
func (c *Confirmation) answer(calls []*genai.FunctionCall) *genai.Content {
	msg := &genai.Content{Role: genai.RoleUser}
	for _, fc := range calls {
		resp := map[string]any{"confirmed": c.Approve}
		if c.AsJSONString {
			b, _ := json.Marshal(resp)
			resp = map[string]any{"response": string(b)}
		}
		msg.Parts = append(msg.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: ConfirmationCall, Response: resp}})
	}
	return msg
}
