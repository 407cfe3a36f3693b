// A step read from its model call's exchange.

package recorded

import (
	"encoding/json"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
)

// stepOf reads a placed model call: its trajectory, read once, and what
// its place and status say.
func stepOf(x *cassettes.Exchange) Step {
	t := cassettes.TrajectoryOf(x)
	s := Step{
		Number: x.Place.Step, Agent: x.Place.Agent, Status: x.Response.Status, Model: t.ModelVersion,
		ToolResults: t.ToolResults, ToolCalls: t.ToolCalls, Text: t.Text, FinishReason: t.FinishReason,
		Latency: t.Latency, Reset: x.Response.End == cassettes.EndReset,
		HTTPCalls: []HTTPCall{}, Exchange: x,
	}
	if s.Model == "" {
		s.Model = conversation.ModelOfPath(x.Request.Path)
	}
	if s.ToolResults == nil {
		s.ToolResults = []cassettes.ToolResult{}
	}
	if s.ToolCalls == nil {
		s.ToolCalls = []cassettes.ToolCall{}
	}
	if u := t.Usage; u != nil {
		s.Usage = &Usage{Prompt: u.PromptTokenCount, Candidates: u.CandidatesTokenCount, Total: u.TotalTokenCount,
			Thoughts: u.ThoughtsTokenCount, Cached: u.CachedContentTokenCount, ToolUse: u.ToolUsePromptTokenCount}
	}
	if x.Response.Status != 200 {
		s.ErrorStatus = errorStatus(&x.Response)
	}
	return s
}

// errorStatus reads the status of a Gemini error body
// ({"error": {"status": "RESOURCE_EXHAUSTED", ...}}), or "".
func errorStatus(r *cassettes.Response) string {
	for _, payload := range cassettes.ResponsePayloads(r) {
		var body struct {
			Error struct {
				Status string `json:"status"`
			} `json:"error"`
		}
		if json.Unmarshal(payload, &body) == nil && body.Error.Status != "" {
			return body.Error.Status
		}
	}
	return ""
}
