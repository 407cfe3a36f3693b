// Changes to a model call's request, in the dialect that carries it: what
// adkproxy fork applies at its fork point (another model, another system
// instruction, other tool declarations, any field set).

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Change is what to change in a model call's request; the zero Change
// changes nothing.
type Change struct {
	// Model replaces the model: in the path for Gemini's generateContent,
	// the body's "model" for the OpenAI-compatible endpoint.
	Model string
	// SystemInstruction, when not nil, replaces the system instruction
	// (Gemini's systemInstruction, the chat's first system message).
	SystemInstruction *string
	// Tools, when not nil, replace the request's tool declarations
	// ("tools"): a JSON array in the request's dialect.
	Tools json.RawMessage
	// Set sets body fields, in order, after the others.
	Set []SetField
}

// SetField sets the body field at Path ("generationConfig.temperature",
// "contents[0].parts[0].text") to Value, any JSON value.
type SetField struct {
	Path  string
	Value json.RawMessage
}

// Empty says whether c changes nothing.
func (c Change) Empty() bool {
	return c.Model == "" && c.SystemInstruction == nil && c.Tools == nil && len(c.Set) == 0
}

// ApplyChange changes req, a model call of Gemini's API or the
// OpenAI-compatible endpoint; another request is an error naming it.
func ApplyChange(req *cassettes.Request, c Change) error {
	call := Recognise(req)
	if call.Kind != Model || (call.Dialect.Name() != "gemini" && call.Dialect.Name() != "openai") {
		return fmt.Errorf("%s %s is not a model call of Gemini's API or its OpenAI-compatible endpoint: it cannot be changed", req.Method, req.Path)
	}
	openAI := call.Dialect.Name() == "openai"
	if c.Model != "" && !openAI {
		old := "models/" + call.Model + ":"
		if call.Model == "" || !strings.Contains(req.Path, old) {
			return fmt.Errorf("%s names no model to replace", req.Path)
		}
		req.Path = strings.Replace(req.Path, old, "models/"+c.Model+":", 1)
	}
	if c.SystemInstruction == nil && c.Tools == nil && len(c.Set) == 0 && (c.Model == "" || !openAI) {
		return nil // only the path changed
	}
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		return fmt.Errorf("%s: the request body is not a JSON object: %v", req.Path, err)
	}
	if c.Model != "" && openAI {
		body["model"] = c.Model
	}
	if c.SystemInstruction != nil {
		setSystemInstruction(body, *c.SystemInstruction, openAI)
	}
	if c.Tools != nil {
		body["tools"] = raw(c.Tools)
	}
	for _, f := range c.Set {
		if err := setAt(body, f.Path, raw(f.Value)); err != nil {
			return fmt.Errorf("--set %s: %v", f.Path, err)
		}
	}
	out, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req.Body = out
	return nil
}

func raw(v json.RawMessage) any { return json.RawMessage(v) }

func setSystemInstruction(body map[string]any, text string, openAI bool) {
	if !openAI {
		body["systemInstruction"] = map[string]any{"parts": []any{map[string]any{"text": text}}}
		return
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) > 0 {
		if m, ok := msgs[0].(map[string]any); ok && (m["role"] == "system" || m["role"] == "developer") {
			m["content"] = text
			return
		}
	}
	body["messages"] = append([]any{map[string]any{"role": "system", "content": text}}, msgs...)
}

// setAt sets the field at a dotted path with [N] indexes, making objects
// on the way; an index must exist.
func setAt(body map[string]any, path string, v any) error {
	steps, err := pathSteps(path)
	if err != nil {
		return err
	}
	var cur any = body
	for i, st := range steps {
		last := i == len(steps)-1
		switch {
		case st.key != "":
			obj, ok := cur.(map[string]any)
			if !ok {
				return fmt.Errorf("%s is not an object", strings.Join(stepNames(steps[:i]), ""))
			}
			if last {
				obj[st.key] = v
				return nil
			}
			if obj[st.key] == nil {
				obj[st.key] = map[string]any{}
			}
			cur = obj[st.key]
		default:
			arr, ok := cur.([]any)
			if !ok || st.index >= len(arr) {
				return fmt.Errorf("%s has no element [%d]", strings.Join(stepNames(steps[:i]), ""), st.index)
			}
			if last {
				arr[st.index] = v
				return nil
			}
			cur = arr[st.index]
		}
	}
	return nil
}

type pathStep struct {
	key   string
	index int
}

func stepNames(steps []pathStep) []string {
	out := []string{"the body"}
	for _, s := range steps {
		if s.key != "" {
			out = append(out, "."+s.key)
		} else {
			out = append(out, "["+strconv.Itoa(s.index)+"]")
		}
	}
	return out
}

// pathSteps parses "a.b[2].c".
func pathSteps(path string) ([]pathStep, error) {
	var out []pathStep
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" && (len(out) == 0 || rest == "") {
			return nil, fmt.Errorf("%q: want a path like generationConfig.temperature or contents[0].parts[0].text", path)
		}
		if name != "" {
			out = append(out, pathStep{key: name})
		}
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("%q: a bad index [%s", path, rest)
			}
			out = append(out, pathStep{index: n})
			rest = strings.TrimPrefix(after, "[")
			if after != "" && !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("%q: want . or [ after ]", path)
			}
		}
	}
	return out, nil
}
