// The JSON-bearing attributes as ADK writes them: the model request as
// google-genai's snake_case LlmRequest dump, the response as ADK's
// LlmResponse, tool arguments and results; Python's json.dumps spacing
// where ADK uses json.dumps.

package otlpexport

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// llmRequest is gcp.vertex.agent.llm_request: {"model", "config",
// "contents"}, the generation config flattened into config beside the
// system instruction and tools (as GenerateContentConfig holds them),
// without response_schema, inline-data parts dropped from the contents.
// ok is false when the body is not a JSON object.
func llmRequest(x *cassettes.Exchange) (string, bool) {
	body, ok := decodeObject(x.Request.Body)
	if !ok {
		return "", false
	}
	config := map[string]any{}
	for k, v := range body {
		switch k {
		case "contents", "model":
		case "generationConfig":
			if gc, ok := v.(map[string]any); ok {
				maps.Copy(config, gc)
			}
		default:
			config[k] = v
		}
	}
	delete(config, "responseSchema")
	contents, _ := body["contents"].([]any)
	kept := make([]any, 0, len(contents))
	for _, c := range contents {
		if content, ok := c.(map[string]any); ok {
			if parts, ok := content["parts"].([]any); ok {
				without := []any{}
				for _, p := range parts {
					if part, ok := p.(map[string]any); !ok || part["inlineData"] == nil {
						without = append(without, p)
					}
				}
				content["parts"] = without
			}
		}
		kept = append(kept, c)
	}
	model := wire.ModelOfPath(x.Request.Path)
	var b strings.Builder
	b.WriteString(`{"model": ` + pyjson.Dumps(model, false))
	b.WriteString(`, "config": ` + pyjson.Dumps(snakeKeys(config), false))
	b.WriteString(`, "contents": ` + pyjson.Dumps(snakeKeys(kept), false) + "}")
	return b.String(), true
}

// llmResponse is gcp.vertex.agent.llm_response: ADK's LlmResponse of the
// answer, compact and snake_case (content, finish_reason, usage_metadata,
// model_version). A stream is shown as ADK's final aggregate: the parts of
// all its chunks with adjacent texts joined, the last chunk's finish
// reason and usage. ok is false when no payload was a JSON object.
func llmResponse(x *cassettes.Exchange) (string, bool) {
	out := map[string]any{}
	var parts []any
	found := false
	for _, payload := range wire.Payloads(&x.Response) {
		resp, ok := decodeObject(payload)
		if !ok {
			continue
		}
		found = true
		for _, k := range []string{"usageMetadata", "modelVersion"} {
			if v, ok := resp[k]; ok {
				out[k] = v
			}
		}
		cands, _ := resp["candidates"].([]any)
		if len(cands) == 0 {
			continue
		}
		cand, _ := cands[0].(map[string]any)
		if r, ok := cand["finishReason"]; ok {
			out["finishReason"] = r
		}
		if content, ok := cand["content"].(map[string]any); ok {
			ps, _ := content["parts"].([]any)
			parts = append(parts, ps...)
		}
	}
	if !found {
		return "", false
	}
	if parts != nil {
		out["content"] = map[string]any{"role": "model", "parts": joinTexts(parts)}
	}
	return compactJSON(snakeKeys(out)), true
}

// joinTexts merges adjacent text parts of the same kind (thought or not)
// as ADK's stream aggregation does.
func joinTexts(parts []any) []any {
	var out []any
	for _, p := range parts {
		part, ok := p.(map[string]any)
		text, isText := part["text"].(string)
		if ok && isText && len(out) > 0 {
			last, _ := out[len(out)-1].(map[string]any)
			if prev, ok := last["text"].(string); ok && last["thought"] == part["thought"] && len(last) <= 2 && len(part) <= 2 {
				last["text"] = prev + text
				continue
			}
		}
		if ok {
			part = maps.Clone(part)
			p = part
		}
		out = append(out, p)
	}
	return out
}

// dataKeys hold caller data, not genai fields: their keys are kept as
// written (function arguments and results, labels, JSON schemas).
var dataKeys = map[string]bool{"args": true, "response": true, "labels": true, "parametersJsonSchema": true,
	"responseJsonSchema": true, "default": true, "example": true}

// snakeKeys renames genai's camelCase wire keys to the snake_case field
// names ADK dumps, leaving data keys and schema property names alone.
func snakeKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			switch {
			case dataKeys[k]:
				out[textfmt.Snake(k)] = val
			case k == "properties":
				props, ok := val.(map[string]any)
				if !ok {
					out[k] = snakeKeys(val)
					continue
				}
				named := make(map[string]any, len(props))
				for name, schema := range props {
					named[name] = snakeKeys(schema)
				}
				out[k] = named
			default:
				out[textfmt.Snake(k)] = snakeKeys(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = snakeKeys(e)
		}
		return out
	}
	return v
}

// decodeObject reads a JSON object keeping numbers as written.
func decodeObject(data []byte) (map[string]any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// compactJSON is v as pydantic's model_dump_json writes it: no spaces,
// non-ASCII and HTML characters as they are.
func compactJSON(v any) string {
	b, err := textfmt.CompactJSON(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// toolResponse is gcp.vertex.agent.tool_response: the function response,
// a value that is not an object wrapped as {"result": value}.
func toolResponse(resp map[string]any) string {
	if resp == nil {
		return pyjson.Dumps(map[string]any{"result": nil}, false)
	}
	return pyjson.Dumps(resp, false)
}
