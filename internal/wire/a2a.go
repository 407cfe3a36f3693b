// The A2A dialect: an agent calling a remote agent (ADK's RemoteA2AAgent)
// over A2A's JSON-RPC binding. The agent card is fetched first
// (/.well-known/agent-card.json, or agent.json before A2A 0.3), then
// message/send, message/stream, tasks/get and tasks/cancel go to the URL
// the card names. Each is a remote-agent call of the step that called the
// agent; the ids the client makes up for every message are left out of
// matching (Volatile), as model call ids are.

package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// A2AVolatile are the request fields an A2A client makes up afresh on
// every run: the message's id, and the session id ADK puts in its
// metadata. They are left out of matching every tool body, where no
// other dialect has them.
var A2AVolatile = []string{"params.message.messageId", "params.message.metadata.adk_session_id"}

type a2a struct{}

func (a2a) Name() string { return DialectA2A }

// Recognise: an agent card fetch, by its well-known path. A2A's JSON-RPC
// calls are POSTs like any other; A2AOf reads them by their bodies.
func (a2a) Recognise(req *cassettes.Request) (Call, bool) {
	if req.Host != "" && req.Method == "GET" && isAgentCardPath(req.Path) {
		return Call{Dialect: a2a{}, Kind: Tool, Method: "agent-card"}, true
	}
	return Call{}, false
}

func isAgentCardPath(path string) bool {
	return strings.HasSuffix(path, "/.well-known/agent-card.json") || strings.HasSuffix(path, "/.well-known/agent.json")
}

func (a2a) Step(x *cassettes.Exchange) Step { return gemini{}.Step(x) }

func (a2a) Request(*cassettes.Request) (Request, bool) { return Request{}, false }

func (a2a) Tool(x *cassettes.Exchange) (ToolExchange, bool) {
	c, ok := A2AOf(x)
	if !ok {
		return httpTool{}.Tool(x)
	}
	args, _ := json.Marshal(map[string]string{"text": c.Text})
	res, _ := json.Marshal(map[string]string{"text": c.Result, "error": c.Error})
	return ToolExchange{Name: c.Label(), Arguments: args, Result: res, Status: x.Response.Status}, true
}

func (a2a) Matching() *Matching { return &Matching{Volatile: A2AVolatile, OfTools: true} }

// A2ACall is one A2A exchange as the run's views show it.
type A2ACall struct {
	// Agent is the remote agent's name: the card's, or the one ADK puts
	// in the message's metadata (adk_app_name), else the host.
	Agent string `json:"agent"`
	// Method is the JSON-RPC method, or "agent-card" for the card fetch.
	Method string `json:"method"`
	// Text is the text of the message sent (message/send, message/stream).
	Text string `json:"text,omitempty"`
	// TaskID is the task asked about (tasks/get, tasks/cancel).
	TaskID string `json:"task_id,omitempty"`
	// Result is the text the remote agent answered (its message's parts,
	// or a task's status message and artifacts), State a task's state.
	Result string `json:"result,omitempty"`
	State  string `json:"state,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Label is the call in a few words: `A2A agent travel_agent message/send`.
func (c A2ACall) Label() string { return "A2A agent " + c.Agent + " " + c.Method }

// String is the call in one line, for listings:
// `travel_agent message/send "Book a trip" → "Booked."`.
func (c A2ACall) String() string {
	s := c.Agent + " " + c.Method
	switch {
	case c.Text != "":
		s += " " + quote(c.Text)
	case c.TaskID != "":
		s += " " + c.TaskID
	}
	switch {
	case c.Error != "":
		return s + " → error: " + c.Error
	case c.Result != "" && c.State != "":
		return s + " → " + c.State + " " + quote(c.Result)
	case c.Result != "":
		return s + " → " + quote(c.Result)
	case c.State != "":
		return s + " → " + c.State
	}
	return s
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// IsA2A says whether a tool request is A2A: an agent card fetch, or a
// JSON-RPC request whose method is A2A's.
func IsA2A(req *cassettes.Request) bool {
	if req.Host == "" {
		return false
	}
	if req.Method == "GET" && isAgentCardPath(req.Path) {
		return true
	}
	m, ok := readJSONRPC(req.Body)
	return ok && isA2AMethod(m.Method)
}

type a2aPart struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

type a2aMessage struct {
	Kind     string         `json:"kind"`
	Parts    []a2aPart      `json:"parts"`
	Metadata map[string]any `json:"metadata"`
}

// a2aResult is what message/send and tasks/* answer (a Message or a
// Task), and what each event of message/stream carries (those, or a
// status or artifact update).
type a2aResult struct {
	Kind   string    `json:"kind"`
	Parts  []a2aPart `json:"parts"`
	Status *struct {
		State   string      `json:"state"`
		Message *a2aMessage `json:"message"`
	} `json:"status"`
	Artifacts []struct {
		Parts []a2aPart `json:"parts"`
	} `json:"artifacts"`
	Artifact *struct {
		Parts []a2aPart `json:"parts"`
	} `json:"artifact"`
}

func textOf(parts []a2aPart) string {
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// A2AOf reads an exchange as A2A; ok is false when it is not.
func A2AOf(x *cassettes.Exchange) (c A2ACall, ok bool) {
	req := &x.Request
	if !IsA2A(req) {
		return A2ACall{}, false
	}
	c.Agent = req.Host
	if req.Method == "GET" {
		c.Method = "agent-card"
		var card struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(x.Response.Body, &card) == nil && card.Name != "" {
			c.Agent = card.Name
		}
		if x.Response.Status != 200 {
			c.Error = fmt.Sprintf("HTTP %d", x.Response.Status)
		}
		return c, true
	}
	m, _ := readJSONRPC(req.Body)
	c.Method = m.Method
	var p struct {
		Message *a2aMessage `json:"message"`
		ID      string      `json:"id"`
	}
	if json.Unmarshal(m.Params, &p) == nil {
		if p.Message != nil {
			c.Text = textOf(p.Message.Parts)
			if name, ok := p.Message.Metadata["adk_app_name"].(string); ok && name != "" {
				c.Agent = name
			}
		}
		c.TaskID = p.ID
	}
	var texts []string
	for _, body := range answerMessages(x) {
		r, ok := readJSONRPC(body)
		if !ok {
			continue
		}
		if r.Error != nil {
			c.Error = r.Error.Message
			continue
		}
		var res a2aResult
		if json.Unmarshal(r.Result, &res) != nil {
			continue
		}
		if t := textOf(res.Parts); t != "" {
			texts = append(texts, t)
		}
		if res.Status != nil {
			c.State = res.Status.State
			if res.Status.Message != nil {
				if t := textOf(res.Status.Message.Parts); t != "" {
					texts = append(texts, t)
				}
			}
		}
		for _, a := range res.Artifacts {
			if t := textOf(a.Parts); t != "" {
				texts = append(texts, t)
			}
		}
		if res.Artifact != nil {
			if t := textOf(res.Artifact.Parts); t != "" {
				texts = append(texts, t)
			}
		}
	}
	c.Result = strings.Join(texts, "\n")
	return c, true
}
