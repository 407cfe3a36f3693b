// Tool confirmations: the user's answers to ADK's tool confirmation
// requests (adk_request_confirmation), which ADK never sends the model, as
// a client reported them to the proxy, filed under the step whose request
// carried the confirmed tool's result (or ADK's refusal).

package cassettes

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Confirmation shapes: the two ways ADK accepts an answer to a tool
// confirmation request.
const (
	// shapeObject: the ToolConfirmation itself, {"confirmed": true}.
	shapeObject = "object"
	// shapeJSONString: that object as a JSON string under "response".
	shapeJSONString = "json-string"
)

// Confirmation is a user's answer to ADK's request to confirm a tool call.
type Confirmation struct {
	// Tool and Args are the call the request asked about.
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
	// Confirmed is the decision: true approved the call, false refused it.
	Confirmed bool `json:"confirmed"`
	// Payload is the answer's payload (ADK hands it to the tool), if any.
	Payload any `json:"payload,omitempty"`
	// Hint is the text ADK showed the user with the request.
	Hint string `json:"hint,omitempty"`
	// Shape is how the answer was sent: "object" (the ToolConfirmation
	// itself) or "json-string" (that object as a JSON string under
	// "response"); empty when not known.
	Shape string `json:"shape,omitempty"`
}

// Decision is "approved" or "refused".
func (c Confirmation) Decision() string {
	if c.Confirmed {
		return "approved"
	}
	return "refused"
}

// Check refuses what a cassette could not hold or would misread: a
// confirmation without a tool, or with a shape other than the two.
func (c Confirmation) Check() error {
	if c.Tool == "" {
		return fmt.Errorf("the confirmation names no tool")
	}
	switch c.Shape {
	case "", shapeObject, shapeJSONString:
	default:
		return fmt.Errorf("the confirmation's shape %q is neither %s nor %s", c.Shape, shapeObject, shapeJSONString)
	}
	if _, err := json.Marshal(c); err != nil {
		return fmt.Errorf("the confirmation's args or payload are not JSON: %v", err)
	}
	return nil
}

// confirmationsNode writes a step's confirmations, or nil when it has none.
func confirmationsNode(cs []Confirmation) (*yaml.Node, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for i, c := range cs {
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("confirmation %d: %w", i+1, err)
		}
		tool, err := textNode(c.Tool, "the confirmed tool's name")
		if err != nil {
			return nil, err
		}
		n := mapping("tool", tool)
		if c.Args != nil {
			n.Content = append(n.Content, strNode("args"), anyNode(c.Args))
		}
		n.Content = append(n.Content, strNode("confirmed"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(c.Confirmed)})
		if c.Payload != nil {
			n.Content = append(n.Content, strNode("payload"), anyNode(c.Payload))
		}
		if c.Hint != "" {
			hint, err := textNode(c.Hint, "the confirmation's hint")
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, strNode("hint"), hint)
		}
		if c.Shape != "" {
			n.Content = append(n.Content, strNode("shape"), strNode(c.Shape))
		}
		list.Content = append(list.Content, n)
	}
	return list, nil
}

// confirmations reads a step's confirmations.
func (r reader) confirmations(n *yaml.Node, where string) ([]Confirmation, error) {
	items, err := r.list(n, where+" confirmations")
	if err != nil || len(items) == 0 {
		return nil, err
	}
	out := make([]Confirmation, 0, len(items))
	for i, item := range items {
		what := fmt.Sprintf("%s confirmation %d", where, i+1)
		f, err := r.fields(item, what, "tool", "args", "confirmed", "payload", "hint", "shape")
		if err != nil {
			return nil, err
		}
		var c Confirmation
		if c.Tool, err = r.str(f["tool"], what+" tool"); err != nil {
			return nil, err
		}
		if v := f["confirmed"]; v == nil || v.Kind != yaml.ScalarNode || (v.Value != "true" && v.Value != "false") {
			return nil, r.errorf(item, "%s needs confirmed: true or false", what)
		}
		c.Confirmed = f["confirmed"].Value == "true"
		if a := f["args"]; a != nil {
			v, err := r.jsonValue(a, what+" args")
			if err != nil {
				return nil, err
			}
			args, ok := v.(map[string]any)
			if !ok {
				return nil, r.errorf(a, "%s args must be a mapping", what)
			}
			c.Args = args
		}
		if p := f["payload"]; p != nil {
			if c.Payload, err = r.jsonValue(p, what+" payload"); err != nil {
				return nil, err
			}
		}
		if c.Hint, err = r.str(f["hint"], what+" hint"); err != nil {
			return nil, err
		}
		if c.Shape, err = r.str(f["shape"], what+" shape"); err != nil {
			return nil, err
		}
		if err := c.Check(); err != nil {
			return nil, r.errorf(item, "%s: %v", what, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// jsonValue reads a YAML value as the JSON value it stands for (numbers as
// float64, as encoding/json reads them).
func (r reader) jsonValue(n *yaml.Node, what string) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, r.errorf(n, "%s: %v", what, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, r.errorf(n, "%s is not a JSON value (keys must be strings): %v", what, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, r.errorf(n, "%s: %v", what, err)
	}
	return out, nil
}
