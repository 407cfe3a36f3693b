// A model call of any dialect written as a generateContent body: what
// reads a call's history in Gemini's terms (placing it in its session and
// invocation, the fake's script) reads every dialect through it.

package wire

import "encoding/json"

// GenerateContentBody is r as a generateContent request body: its system
// instruction, contents (text, function calls and responses, other parts
// as they were) and function declarations.
func GenerateContentBody(r Request) []byte {
	type part map[string]any
	parts := func(ps []Part) []any {
		out := make([]any, 0, len(ps))
		for _, p := range ps {
			switch {
			case p.FunctionCall != nil:
				out = append(out, part{"functionCall": map[string]any{"id": p.FunctionCall.ID, "name": p.FunctionCall.Name, "args": p.FunctionCall.Args}})
			case p.FunctionResponse != nil:
				out = append(out, part{"functionResponse": map[string]any{"id": p.FunctionResponse.ID, "name": p.FunctionResponse.Name, "response": p.FunctionResponse.Response}})
			case p.Other != nil:
				out = append(out, json.RawMessage(p.Other))
			default:
				q := part{"text": p.Text}
				if p.Thought {
					q["thought"] = true
				}
				out = append(out, q)
			}
		}
		return out
	}
	body := map[string]any{}
	contents := make([]any, 0, len(r.Contents))
	for _, c := range r.Contents {
		content := map[string]any{"parts": parts(c.Parts)}
		if c.Role != "" {
			content["role"] = c.Role
		}
		contents = append(contents, content)
	}
	body["contents"] = contents
	if r.System != nil {
		body["systemInstruction"] = map[string]any{"parts": parts(r.System.Parts)}
	}
	if len(r.Tools) > 0 {
		decls := make([]any, 0, len(r.Tools))
		for _, d := range r.Tools {
			decl := map[string]any{"name": d.Name, "description": d.Description}
			if d.Parameters != nil {
				decl["parameters"] = json.RawMessage(d.Parameters)
			}
			decls = append(decls, decl)
		}
		body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
	}
	b, _ := json.Marshal(body) // RawMessages come from parsed JSON; maps of JSON values always encode
	return b
}
