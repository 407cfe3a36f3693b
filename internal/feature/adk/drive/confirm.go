// Answering ADK's tool confirmation requests (adk_request_confirmation)
// with a scripted decision.

package drive

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Confirmation is how a Driver answers ADK's tool confirmation requests.
type Confirmation struct {
	// Approve is the decision: true approves the tool call, false refuses it.
	Approve bool
	// AsJSONString sends ADK's other accepted shape: the ToolConfirmation as
	// a JSON string under "response" ({"response": "{\"confirmed\": true}"})
	// instead of the object itself ({"confirmed": true}).
	AsJSONString bool
	// Payload, when not nil, goes with the answer (ADK hands it to the
	// tool as the ToolConfirmation's payload).
	Payload any
}

// ParseConfirmation reads --confirm (approve or refuse), --confirm-shape
// (object or json-string) and --confirm-payload (a JSON value, or empty).
func ParseConfirmation(decision, shape, payload string) (*Confirmation, error) {
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
	if strings.TrimSpace(payload) != "" {
		// Numbers stay as written (json.Number), so ADK gets them exactly.
		dec := json.NewDecoder(strings.NewReader(payload))
		dec.UseNumber()
		err := dec.Decode(&c.Payload)
		if err == nil && dec.Decode(new(any)) != io.EOF {
			err = fmt.Errorf("more follows the value")
		}
		if err != nil {
			return nil, fmt.Errorf("--confirm-payload %q is not one JSON value: %v", payload, err)
		}
	}
	return c, nil
}
