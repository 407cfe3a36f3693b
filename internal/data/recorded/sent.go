// What a step's model was given besides the conversation.

package recorded

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// Sent is the part of a model call that an agent's definition decides:
// the model asked for, the system instruction, the generation config and
// the tools. Comparing runs compares it per agent, once per invocation.
type Sent struct {
	Model string
	// SystemInstruction is the instruction's texts joined by line breaks.
	SystemInstruction string
	// GenerationConfig is nil when none was sent.
	GenerationConfig map[string]any
	// Tools are as sent: function declarations and built-in tools.
	Tools []any
}

// Sent reads what the step's request gave the model. A body that is not a
// JSON object gives the model alone. Only the three fields are decoded: the
// contents, most of a body, are skipped (diffs read this for every
// invocation).
func (s *Step) Sent() Sent {
	if c := wire.Recognise(&s.Exchange.Request); c.Kind == wire.Model && c.Dialect != nil && c.Dialect.Name() == "openai" {
		return sentInChat(&s.Exchange.Request)
	}
	out := Sent{Model: wire.ModelOfPath(s.Exchange.Request.Path)}
	var req struct {
		SystemInstruction json.RawMessage `json:"systemInstruction"`
		GenerationConfig  json.RawMessage `json:"generationConfig"`
		Tools             json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(s.Exchange.Request.Body, &req) != nil {
		return out
	}
	var si any // a content, or a bare string as some clients send
	json.Unmarshal(req.SystemInstruction, &si)
	out.SystemInstruction = strings.Join(wire.InstructionTexts(si), "\n")
	config, _ := matcher.ParseJSON(req.GenerationConfig)
	out.GenerationConfig, _ = config.(map[string]any)
	tools, _ := matcher.ParseJSON(req.Tools)
	out.Tools, _ = tools.([]any)
	return out
}

// sentInChat reads a chat completion on the OpenAI-compatible endpoint as
// generateContent's Sent: the system messages as the instruction, the
// tools as function declarations, and the other request fields as the
// generation config, by Gemini's names (top_p as topP).
func sentInChat(req *cassettes.Request) Sent {
	r, ok := wire.RequestOf(req)
	if !ok {
		return Sent{}
	}
	out := Sent{Model: r.Model}
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
			if params, ok := matcher.ParseJSON(d.Parameters); ok {
				decl["parameters"] = params
			}
			decls = append(decls, decl)
		}
		out.Tools = []any{map[string]any{"functionDeclarations": decls}}
	}
	out.GenerationConfig = wire.ChatGenerationConfig(req.Body)
	return out
}
