// Answering ADK's tool confirmation requests (adk_request_confirmation)
// with a scripted decision.

package drive

import "fmt"

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
