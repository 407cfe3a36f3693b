// The trajectory of an Interactions API call, whose bodies have their own
// shape: input items and output items with a "type", snake_case usage.

package cassettes

import (
	"encoding/json"
	"strings"

	"google.golang.org/genai"
)

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

// interactionTrajectory fills t from an Interactions API create call; false
// when x is not one.
func interactionTrajectory(x *Exchange, t *Trajectory) bool {
	if x.Request.Method != "POST" || !strings.HasSuffix(x.Request.Path, "/interactions") {
		return false
	}
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	var items []interactionItem
	if json.Unmarshal(x.Request.Body, &req) == nil && json.Unmarshal(req.Input, &items) == nil {
		for _, it := range items {
			if it.Type == "function_result" {
				response, ok := it.Result.(map[string]any)
				if !ok {
					response = map[string]any{"result": it.Result}
				}
				t.ToolResults = append(t.ToolResults, ToolResult{ID: it.CallID, Name: it.Name, Response: response})
			}
		}
	}
	if x.Response.Status != 200 {
		return true
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
		return true
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
		t.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: u.Input, CandidatesTokenCount: u.Output, TotalTokenCount: u.Total}
	}
	return true
}
