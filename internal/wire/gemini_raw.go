// What ADK's judges read of a Gemini model call as it was recorded,
// besides the step: the agent's system instruction and tools (ADK's app
// details), the function calls and responses with their keys in wire
// order, and the answer's grounding.

package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Raw is a model call's parts as recorded, for readers that show them as
// they were sent rather than decoded.
type Raw struct {
	// Instructions is the system instruction's text parts joined by line
	// breaks; Tools the request's tools array as recorded (nil when none).
	Instructions string
	Tools        json.RawMessage
	// Calls are the answer's functionCall objects and Results the
	// request's trailing functionResponse objects, in the order StepOf
	// reads them.
	Calls   []json.RawMessage
	Results []json.RawMessage
}

// RawOf reads a model call's recorded parts (Gemini's shape, as StepOf
// reads an exchange no other dialect calls a model call).
func RawOf(x *cassettes.Exchange) Raw {
	var r Raw
	r.Instructions, r.Tools = geminiRequestDetails(x.Request.Body)
	r.Calls = geminiRawCalls(&x.Response)
	r.Results = geminiRawResults(x.Request.Body)
	return r
}

// geminiRequestDetails reads a request's system instruction (its text
// parts joined by line breaks) and its tools array as recorded.
func geminiRequestDetails(body []byte) (instructions string, tools json.RawMessage) {
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

// geminiRawCalls are the functionCall objects of a response.
func geminiRawCalls(r *cassettes.Response) []json.RawMessage {
	var out []json.RawMessage
	for _, payload := range Payloads(r) {
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

// geminiRawResults are the functionResponse objects of the request's
// trailing non-model contents.
func geminiRawResults(body []byte) []json.RawMessage {
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

// Grounding counts an answer's groundingMetadata: the most chunks any
// payload returned, and the distinct chunk indices its supports cite.
type Grounding struct {
	Chunks int
	Cited  int
}

// GroundingOf reads a model call's grounding; zero for an answer that is
// not a 200 or has none.
func GroundingOf(x *cassettes.Exchange) Grounding {
	var g Grounding
	if x == nil || x.Response.Status != 200 {
		return g
	}
	cited := map[int]bool{}
	for _, payload := range Payloads(&x.Response) {
		var resp struct {
			Candidates []struct {
				GroundingMetadata *struct {
					GroundingChunks   []json.RawMessage `json:"groundingChunks"`
					GroundingSupports []struct {
						GroundingChunkIndices []int `json:"groundingChunkIndices"`
					} `json:"groundingSupports"`
				} `json:"groundingMetadata"`
			} `json:"candidates"`
		}
		if json.Unmarshal(payload, &resp) != nil {
			continue
		}
		for _, cand := range resp.Candidates {
			gm := cand.GroundingMetadata
			if gm == nil {
				continue
			}
			g.Chunks = max(g.Chunks, len(gm.GroundingChunks))
			for _, s := range gm.GroundingSupports {
				for _, i := range s.GroundingChunkIndices {
					if i >= 0 && i < len(gm.GroundingChunks) {
						cited[i] = true
					}
				}
			}
		}
	}
	g.Cited = len(cited)
	return g
}
