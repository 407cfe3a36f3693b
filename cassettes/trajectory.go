// What a model call did, derived from its recorded bodies (never stored):
// the tool results it was sent, the tool calls and text it answered with,
// and its usage.

package cassettes

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"google.golang.org/genai"
)

// Trajectory is what a model call did, read from its bodies: the tool
// results it was sent, the tool calls and text it answered with, and what
// it cost. Bodies are the truth; a trajectory is always derived from them.
type Trajectory struct {
	// ToolResults are the functionResponse parts the request carried after
	// the model's last turn: the results of the previous step's calls.
	ToolResults  []ToolResult
	ToolCalls    []ToolCall
	Text         string
	FinishReason string
	Usage        *genai.GenerateContentResponseUsageMetadata
	ModelVersion string
	Latency      time.Duration
}

// ToolCall is one function call in a model response, the one type every
// package passes tool calls around as. Args is nil when the call had none
// (Python None to ADK). Its JSON is ADK's FunctionCall: {"id" (when set),
// "name", "args"}.
type ToolCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// ToolResult is one function response sent back to the model. Its JSON
// is ADK's FunctionResponse: {"id" (when set), "name", "response"}.
type ToolResult struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// FinalStep is the index of the model call that gave an invocation's
// final response, steps being its calls' trajectories in order: the last
// one that answered with text and no tool call, what the user was told
// (ADK's rule). It is -1 when no call did.
func FinalStep(steps []Trajectory) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if s := steps[i]; s.Text != "" && len(s.ToolCalls) == 0 {
			return i
		}
	}
	return -1
}

// TrajectoryOf derives the trajectory of an exchange. Responses that are
// not Gemini JSON (errors, other endpoints) simply yield an empty one.
func TrajectoryOf(x *Exchange) Trajectory {
	t := Trajectory{Latency: x.Response.Latency}
	if interactionTrajectory(x, &t) {
		return t
	}
	t.ToolResults = toolResultsOf(x.Request.Body)
	if x.Response.Status != 200 {
		return t
	}
	var text strings.Builder
	for _, payload := range ResponsePayloads(&x.Response) {
		var resp modelResponse
		if t := bytes.TrimLeft(payload, " \t\r\n"); len(t) == 0 || t[0] != '{' || json.Unmarshal(payload, &resp) != nil {
			continue
		}
		if resp.UsageMetadata != nil {
			t.Usage = resp.UsageMetadata // cumulative in streams: the last one counts
		}
		if resp.ModelVersion != "" {
			t.ModelVersion = resp.ModelVersion
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
			continue
		}
		cand := resp.Candidates[0]
		if cand.FinishReason != "" {
			t.FinishReason = string(cand.FinishReason)
		}
		if cand.Content == nil {
			continue
		}
		// The text parts of one response are joined by line breaks, as ADK
		// joins a final response's parts; the chunks of a stream are pieces
		// of one text and are joined as they are.
		sep := ""
		for _, p := range cand.Content.Parts {
			switch {
			case p == nil:
			case p.FunctionCall != nil:
				t.ToolCalls = append(t.ToolCalls, ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
			case p.Text != "" && !p.Thought:
				text.WriteString(sep)
				text.WriteString(p.Text)
				sep = "\n"
			}
		}
	}
	t.Text = text.String()
	return t
}

// ResponsePayloads returns the JSON documents of a response: its body, or
// the data of each SSE event.
func ResponsePayloads(r *Response) [][]byte {
	if !r.Streamed() {
		return [][]byte{r.Body}
	}
	var out [][]byte
	for _, e := range r.Events {
		var data []byte
		for _, line := range bytes.Split(e.Data, []byte("\n")) {
			line = bytes.TrimRight(line, "\r")
			if p, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(p, []byte(" "))...)
			}
		}
		if len(data) > 0 {
			out = append(out, data)
		}
	}
	return out
}

// modelResponse is the part of a GenerateContentResponse a trajectory
// reads. Decoding only that, rather than genai's whole type with its own
// decoder, is most of what reading a large run costs.
type modelResponse struct {
	Candidates []*struct {
		Content *struct {
			Parts []*struct {
				Text         string              `json:"text"`
				Thought      bool                `json:"thought"`
				FunctionCall *genai.FunctionCall `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *genai.GenerateContentResponseUsageMetadata `json:"usageMetadata"`
	ModelVersion  string                                      `json:"modelVersion"`
}

// toolResultsOf reads the function responses of the turn a model call
// answers: the contents after the history's last model turn. Every call
// carries its whole history, so the contents are kept raw and only that
// tail is decoded.
func toolResultsOf(body []byte) []ToolResult {
	contents, ok := rawElements(body, "contents")
	if !ok {
		var req struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(body, &req) != nil {
			return nil
		}
		for _, c := range req.Contents {
			contents = append(contents, c)
		}
	}
	var out []ToolResult
	for i := len(contents) - 1; i >= 0; i-- {
		var c struct {
			Role  string `json:"role"`
			Parts []*struct {
				FunctionResponse *genai.FunctionResponse `json:"functionResponse"`
			} `json:"parts"`
		}
		raw := bytes.TrimSpace(contents[i])
		if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &c) != nil || c.Role == genai.RoleModel {
			break
		}
		var results []ToolResult
		for _, p := range c.Parts {
			if p != nil && p.FunctionResponse != nil {
				results = append(results, ToolResult{ID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Response: p.FunctionResponse.Response})
			}
		}
		out = append(results, out...)
	}
	return out
}
