// The Interactions API: POST /{v}/interactions creates an interaction,
// whose input and output items carry a "type", with snake_case usage. A
// call names the interaction before it instead of repeating the history.

package wire

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

type interactions struct{}

func (interactions) Name() string { return "interactions" }

// Recognise: a POST to a path ending in /interactions is a model call;
// reading one back (GET .../interactions/{id}) is Other.
func (interactions) Recognise(req *cassettes.Request) (Call, bool) {
	if req.Method == "POST" && strings.HasSuffix(req.Path, "/interactions") {
		return Call{Dialect: interactions{}, Kind: Model, Method: "interactions", Vertex: strings.Contains(req.Path, "/projects/")}, true
	}
	if i := strings.LastIndex(req.Path, "/interactions/"); i >= 0 && strings.HasPrefix(req.Path, "/v1") {
		return Call{Dialect: interactions{}, Kind: Other, Method: "interactions.get", Vertex: strings.Contains(req.Path[:i], "/projects/")}, true
	}
	return Call{}, false
}

var interactionsPath = regexp.MustCompile(`^/v1[a-z0-9]*/(?:projects/[^/]+/locations/[^/]+/)?interactions$`)

// IsInteractionsCreate reports whether path is exactly an Interactions API
// create path, /{v}/interactions or Vertex's
// /{v}/projects/{p}/locations/{l}/interactions, as placing a call wants.
func IsInteractionsCreate(path string) bool {
	return strings.HasSuffix(path, "/interactions") && interactionsPath.MatchString(path)
}

// interactionItem is one input or output item of an interaction.
type interactionItem struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	ID        string         `json:"id"`
	CallID    string         `json:"call_id"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Result    any            `json:"result"`
}

// Step reads the function results of the input, and the answer's text
// items (joined by line breaks), function calls, model, status (as a
// finish reason when it is not "completed") and usage.
func (interactions) Step(x *cassettes.Exchange) Step {
	t := Step{Latency: x.Response.Latency}
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	var items []interactionItem
	if json.Unmarshal(x.Request.Body, &req) == nil && json.Unmarshal(req.Input, &items) == nil {
		for _, it := range items {
			if it.Type == "function_result" {
				t.ToolResults = append(t.ToolResults, ToolResult{ID: it.CallID, Name: it.Name, Response: interactionResult(it.Result)})
			}
		}
	}
	if x.Response.Status != 200 {
		return t
	}
	var resp struct {
		Model   string            `json:"model"`
		Status  string            `json:"status"`
		Outputs []interactionItem `json:"outputs"`
		Usage   *struct {
			Input  int32 `json:"total_input_tokens"`
			Output int32 `json:"total_output_tokens"`
			Total  int32 `json:"total_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(x.Response.Body, &resp) != nil {
		return t
	}
	var texts []string
	for _, o := range resp.Outputs {
		switch o.Type {
		case "text":
			texts = append(texts, o.Text)
		case "function_call":
			t.ToolCalls = append(t.ToolCalls, ToolCall{ID: o.ID, Name: o.Name, Args: o.Arguments})
		}
	}
	t.Text = strings.Join(texts, "\n")
	t.ModelVersion = resp.Model
	if resp.Status != "" && resp.Status != "completed" {
		t.FinishReason = strings.ToUpper(resp.Status)
	}
	if u := resp.Usage; u != nil {
		t.Usage = &Usage{Prompt: u.Input, Candidates: u.Output, Total: u.Total}
	}
	return t
}

// interactionResult is a function result as a response object: an object
// as it is, anything else under "result".
func interactionResult(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{"result": v}
}

// Request reads a create call: its model (or agent), system instruction,
// input items (text and function calls as model turns, function results
// as user turns) and function tools.
func (interactions) Request(req *cassettes.Request) (Request, bool) {
	var body struct {
		Model             string          `json:"model"`
		Agent             string          `json:"agent"`
		Input             json.RawMessage `json:"input"`
		SystemInstruction *string         `json:"system_instruction"`
		Tools             []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if json.Unmarshal(req.Body, &body) != nil {
		return Request{}, false
	}
	r := Request{Model: body.Model}
	if r.Model == "" {
		r.Model = body.Agent
	}
	if body.SystemInstruction != nil {
		r.System = &Content{Parts: []Part{{Text: *body.SystemInstruction}}}
	}
	var text string
	var items []interactionItem
	switch {
	case json.Unmarshal(body.Input, &text) == nil:
		r.Contents = []Content{{Role: "user", Parts: []Part{{Text: text}}}}
	case json.Unmarshal(body.Input, &items) == nil:
		for _, it := range items {
			switch it.Type {
			case "text":
				r.Contents = append(r.Contents, Content{Role: "user", Parts: []Part{{Text: it.Text}}})
			case "function_call":
				r.Contents = append(r.Contents, Content{Role: "model", Parts: []Part{{FunctionCall: &ToolCall{ID: it.ID, Name: it.Name, Args: it.Arguments}}}})
			case "function_result":
				r.Contents = append(r.Contents, Content{Role: "user", Parts: []Part{{FunctionResponse: &ToolResult{ID: it.CallID, Name: it.Name, Response: interactionResult(it.Result)}}}})
			}
		}
	}
	for _, t := range body.Tools {
		if t.Type == "function" {
			r.Tools = append(r.Tools, Declaration{Name: t.Name, Description: t.Description, Parameters: []byte(t.Parameters)})
		}
	}
	return r, true
}

func (interactions) Tool(*cassettes.Exchange) (ToolExchange, bool) { return ToolExchange{}, false }

// Matching: an interaction's body has no client-made ids; previous ids
// are the server's, renumbered by the matcher's names.
func (interactions) Matching() *Matching { return &Matching{} }
