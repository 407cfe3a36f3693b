// A step read from its model call's exchange.

package recorded

import (
	"encoding/json"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// stepOf reads a placed model call: its step as the wire says, read
// once, and what its place and status say.
func stepOf(x *cassettes.Exchange) Step {
	s := Step{Step: wire.StepOf(x), Number: x.Place.Step, Agent: x.Place.Agent, Status: x.Response.Status,
		Reset: x.Response.End == cassettes.EndReset, HTTPCalls: []*HTTPCall{}, Exchange: x}
	if s.Model = s.ModelVersion; s.Model == "" {
		s.Model = wire.ModelOfPath(x.Request.Path)
	}
	if s.ToolResults == nil {
		s.ToolResults = []cassettes.ToolResult{}
	}
	if s.ToolCalls == nil {
		s.ToolCalls = []cassettes.ToolCall{}
	}
	if x.Response.Status != 200 {
		s.ErrorStatus = errorStatus(&x.Response)
	}
	return s
}

// errorStatus reads the status of a Gemini error body
// ({"error": {"status": "RESOURCE_EXHAUSTED", ...}}), or "".
func errorStatus(r *cassettes.Response) string {
	for _, payload := range wire.Payloads(r) {
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
