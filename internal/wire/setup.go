// What a model call's request gives the model besides the conversation,
// in generateContent's shape whatever the dialect: the run diff compares
// it per agent, the OTLP export shows it.

package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Setup is the part of a model call that an agent's definition decides:
// the model asked for, the system instruction, the generation config and
// the tools.
type Setup struct {
	Model string
	// SystemInstruction is the instruction's texts joined by line breaks.
	SystemInstruction string
	// GenerationConfig is nil when none was sent.
	GenerationConfig map[string]any
	// Tools are as sent, in generateContent's shape: function declarations
	// and built-in tools (see FunctionTools).
	Tools []any
}

// SetupOf reads what a model call's request gave the model. A body that is
// not a JSON object gives the model alone. Only those fields are decoded:
// the contents, most of a body, are skipped (diffs read this for every
// invocation). A chat completion reads as generateContent would: its
// system messages as the instruction, its tools as function declarations,
// its other fields as the generation config, by Gemini's names (top_p as
// topP).
func SetupOf(req *cassettes.Request) Setup {
	if c := Recognise(req); c.Kind == Model && c.Dialect != nil && c.Dialect.Name() == "openai" {
		return setupOfChat(req)
	}
	out := Setup{Model: ModelOfPath(req.Path)}
	var body struct {
		SystemInstruction json.RawMessage `json:"systemInstruction"`
		GenerationConfig  json.RawMessage `json:"generationConfig"`
		Tools             json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(req.Body, &body) != nil {
		return out
	}
	var si any // a content, or a bare string as some clients send
	json.Unmarshal(body.SystemInstruction, &si)
	out.SystemInstruction = strings.Join(InstructionTexts(si), "\n")
	config, _ := decodeJSON(body.GenerationConfig)
	out.GenerationConfig, _ = config.(map[string]any)
	tools, _ := decodeJSON(body.Tools)
	out.Tools, _ = tools.([]any)
	return out
}

func setupOfChat(req *cassettes.Request) Setup {
	r, ok := RequestOf(req)
	if !ok {
		return Setup{}
	}
	out := Setup{Model: r.Model}
	if r.System != nil {
		var texts []string
		for _, p := range r.System.Parts {
			texts = append(texts, p.Text)
		}
		out.SystemInstruction = strings.Join(texts, "\n")
	}
	if len(r.Tools) > 0 {
		var decls []any
		for _, d := range r.Tools {
			decl := map[string]any{"name": d.Name, "description": d.Description}
			if params, ok := decodeJSON(d.Parameters); ok {
				decl["parameters"] = params
			}
			decls = append(decls, decl)
		}
		out.Tools = []any{map[string]any{functionDeclarationsKey: decls}}
	}
	out.GenerationConfig = ChatGenerationConfig(req.Body)
	return out
}

// functionDeclarationsKey holds a Gemini tool's function declarations.
const functionDeclarationsKey = "functionDeclarations"

// A NamedTool is one thing a request's tools declare: a function by its
// name, or a built-in tool (googleSearch, codeExecution...) by its key.
type NamedTool struct {
	Name  string
	Value any // the declaration, or the built-in tool's settings, as sent
}

// FunctionTools splits tools, in generateContent's shape (Setup.Tools),
// into the functions they declare and the built-in tools, each in the
// order sent (a tool object's keys in no order).
func FunctionTools(tools []any) (functions, builtIn []NamedTool) {
	for _, t := range tools {
		obj, _ := t.(map[string]any)
		for key, v := range obj {
			list, isList := v.([]any)
			if key != functionDeclarationsKey || !isList {
				builtIn = append(builtIn, NamedTool{key, v})
				continue
			}
			for _, decl := range list {
				m, _ := decl.(map[string]any)
				name, _ := m["name"].(string)
				functions = append(functions, NamedTool{name, decl})
			}
		}
	}
	return functions, builtIn
}

// decodeJSON decodes a JSON object or array as the matcher does (what
// encoding/json gives an any with UseNumber: numbers kept as written);
// ok is false for anything else.
func decodeJSON(b []byte) (any, bool) {
	b = bytes.Trim(b, " \t\r\n")
	if len(b) == 0 || b[0] != '{' && b[0] != '[' {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}
