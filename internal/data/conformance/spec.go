// Reading a case's spec.yaml: the agent and the user turns to send.

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"google.golang.org/genai"
	"gopkg.in/yaml.v3"
)

// Spec is a case's spec.yaml.
type Spec struct {
	File         string
	Description  string
	Agent        string
	InitialState map[string]any
	UserMessages []UserMessage
}

// UserMessage is one user turn of a spec.
type UserMessage struct {
	Line int
	// Text is set when the turn was given as `text:`.
	Text string
	// Content is the turn as the wire carries it (role user; a `text:`
	// turn is one text part). A function_response part answers a
	// long-running tool: its id must be replaced with the id the server
	// gave the call of that name (PatchFunctionResponseIDs).
	Content *genai.Content
	// StateDelta is the turn's state_delta, or nil.
	StateDelta map[string]any
}

// NewMessage is the turn as JSON for an ADK API server's run_sse
// newMessage field: {"role":"user","parts":[...]} in camelCase.
func (m UserMessage) NewMessage() json.RawMessage {
	b, _ := json.Marshal(m.Content) // genai.Content always marshals
	return b
}

// FunctionResponses are the turn's function_response parts.
func (m UserMessage) FunctionResponses() []*genai.FunctionResponse {
	var out []*genai.FunctionResponse
	for _, p := range m.Content.Parts {
		if p != nil && p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

// PatchFunctionResponseIDs gives each function_response part of content the
// id of the call of the same name in ids (name → id of the server's latest
// call), as ADK's conformance runner does for long-running tools. It returns
// the names it found no call for.
func PatchFunctionResponseIDs(content *genai.Content, ids map[string]string) (missing []string) {
	for _, p := range content.Parts {
		if p == nil || p.FunctionResponse == nil {
			continue
		}
		if id, ok := ids[p.FunctionResponse.Name]; ok {
			p.FunctionResponse.ID = id
		} else {
			missing = append(missing, p.FunctionResponse.Name)
		}
	}
	return missing
}

// ReadSpec reads a spec.yaml.
func ReadSpec(file string) (*Spec, error) { return readWith(file, ParseSpec) }

// ParseSpec reads a spec.yaml's bytes; file names it in errors.
func ParseSpec(file string, data []byte) (*Spec, error) {
	d := doc{file: file}
	root, err := d.parse(data)
	if err != nil {
		return nil, err
	}
	f, err := d.fields(root, "spec", "description", "agent", "initial_state", "user_messages")
	if err != nil {
		return nil, err
	}
	s := &Spec{File: file}
	if n := f["description"]; n != nil {
		if s.Description, err = d.str(n, "description"); err != nil {
			return nil, err
		}
	}
	if s.Agent, err = d.str(f["agent"], "agent (the folder under agents/)"); err != nil {
		return nil, err
	}
	if s.InitialState, err = d.plain(f["initial_state"], "initial_state"); err != nil {
		return nil, err
	}
	msgs, err := d.list(f["user_messages"], "user_messages")
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, d.errorf(root, "spec: user_messages is missing or empty: a case needs at least one user turn")
	}
	for i, n := range msgs {
		m, err := d.userMessage(n, fmt.Sprintf("user_messages[%d]", i))
		if err != nil {
			return nil, err
		}
		s.UserMessages = append(s.UserMessages, m)
	}
	return s, nil
}

func (d doc) userMessage(n *yaml.Node, what string) (UserMessage, error) {
	m := UserMessage{Line: n.Line}
	f, err := d.fields(n, what, "text", "content", "state_delta")
	if err != nil {
		return m, err
	}
	text, content := f["text"], f["content"]
	switch {
	case (text == nil) == (content == nil):
		return m, d.errorf(n, "%s: give either text or content", what)
	case text != nil:
		if m.Text, err = d.str(text, what+".text"); err != nil {
			return m, err
		}
		m.Content = genai.NewContentFromText(m.Text, genai.RoleUser)
	default:
		if m.Content, err = d.content(content, what+".content"); err != nil {
			return m, err
		}
		if m.Content.Role == "" {
			m.Content.Role = genai.RoleUser
		}
		if len(m.Content.Parts) == 0 {
			return m, d.errorf(content, "%s.content: no parts", what)
		}
	}
	m.StateDelta, err = d.plain(f["state_delta"], what+".state_delta")
	return m, err
}

// content reads a genai Content written in ADK's snake_case.
func (d doc) content(n *yaml.Node, what string) (*genai.Content, error) {
	var c genai.Content
	if err := d.decodeAs(n, &c, what); err != nil {
		return nil, err
	}
	return &c, nil
}

// decodeAs reads a snake_case node into a genai value through its wire
// JSON, so the genai types' own JSON rules apply.
func (d doc) decodeAs(n *yaml.Node, v any, what string) error {
	w, err := d.rename(n, reflect.TypeOf(v), toWire, what)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := d.writeJSON(&b, w); err != nil {
		return err
	}
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return d.errorf(n, "%s: %v", what, err)
	}
	return nil
}
