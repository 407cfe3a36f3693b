// What ADK's judges read of a model call besides the conversation: the
// agent's system instruction and tool declarations (ADK's app details),
// and the function calls and responses as recorded, keys in wire order.

package scoring

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// requestDetails reads a model request's system instruction (its text
// parts joined by line breaks) and its tools array as recorded.
func requestDetails(body []byte) (instructions string, tools json.RawMessage) {
	var req struct {
		SystemInstruction *struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"systemInstruction"`
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", nil
	}
	if si := req.SystemInstruction; si != nil {
		var texts []string
		for _, p := range si.Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		instructions = strings.Join(texts, "\n")
	}
	if t := bytes.TrimSpace(req.Tools); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		tools = t
	}
	return instructions, tools
}

type rawPart struct {
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// rawCalls are the functionCall objects of a response, in the order
// wire.StepOf reads them.
func rawCalls(r *cassettes.Response) []json.RawMessage {
	var out []json.RawMessage
	for _, payload := range wire.Payloads(r) {
		var resp struct {
			Candidates []*struct {
				Content *struct {
					Parts []*rawPart `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if json.Unmarshal(payload, &resp) != nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].Content == nil {
			continue
		}
		for _, p := range resp.Candidates[0].Content.Parts {
			if p != nil && present(p.FunctionCall) {
				out = append(out, p.FunctionCall)
			}
		}
	}
	return out
}

// rawResults are the functionResponse objects of the request's trailing
// non-model contents, in the order wire.StepOf reads them.
func rawResults(body []byte) []json.RawMessage {
	var req struct {
		Contents []*struct {
			Role  string     `json:"role"`
			Parts []*rawPart `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []json.RawMessage
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c == nil || c.Role == "model" {
			break
		}
		var results []json.RawMessage
		for _, p := range c.Parts {
			if p != nil && present(p.FunctionResponse) {
				results = append(results, p.FunctionResponse)
			}
		}
		out = append(results, out...)
	}
	return out
}

// stepDetails fills what ADK's judges read of step's model call x; the raw
// calls and results only when they are one for one with those read.
func stepDetails(step *Step, x *cassettes.Exchange) {
	step.Instructions, step.Tools = requestDetails(x.Request.Body)
	if calls := rawCalls(&x.Response); len(calls) == len(step.ToolCalls) && len(calls) > 0 {
		step.CallsJSON = calls
	}
	if results := rawResults(x.Request.Body); len(results) == len(step.ToolResults) && len(results) > 0 {
		step.ResultsJSON = results
	}
}
