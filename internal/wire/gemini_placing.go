// What placing a Gemini model call reads of its request and answer: the
// parts of a body read once (wire.Body) that name its agent and history,
// the turns as the matcher decodes them, and the answer's function calls.

package wire

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// The members of a generateContent body that place a call.
const (
	// GeminiHistory is the member holding the turns (contents).
	GeminiHistory = "contents"
	// GeminiInstruction is the system instruction's member.
	GeminiInstruction = "systemInstruction"
	// GeminiTools is the member holding the tools.
	GeminiTools = "tools"
	// GeminiLabels holds the client's labels (ADK names its agent there).
	GeminiLabels = "labels"
)

// contextRelay is how ADK shows one agent's output to another: user-role
// text that starts with "For context:". It is not something the user said.
const contextRelay = "For context:"

// UserText returns the text of a decoded content that is a user turn: user
// role (or none, which Gemini reads as user), some non-thought text, no
// function call or response, and not ADK's context relay.
func UserText(content any) (string, bool) {
	c, _ := content.(map[string]any)
	if role, _ := c["role"].(string); role != "" && role != "user" {
		return "", false
	}
	parts, _ := c["parts"].([]any)
	var texts []string
	for _, p := range parts {
		part, _ := p.(map[string]any)
		if part["functionResponse"] != nil || part["functionCall"] != nil {
			return "", false
		}
		if text, ok := part["text"].(string); ok && part["thought"] != true {
			texts = append(texts, text)
		}
	}
	if len(texts) == 0 || strings.HasPrefix(strings.TrimSpace(texts[0]), contextRelay) {
		return "", false
	}
	return strings.Join(texts, "\n"), true
}

// OnlyFunctionResponses reports whether a decoded content is a user turn
// (or has no role) whose parts are all function responses.
func OnlyFunctionResponses(content any) bool {
	c, _ := content.(map[string]any)
	if role, _ := c["role"].(string); role != "" && role != "user" {
		return false
	}
	parts, _ := c["parts"].([]any)
	for _, p := range parts {
		if part, _ := p.(map[string]any); part["functionResponse"] == nil {
			return false
		}
	}
	return len(parts) > 0
}

// internalName finds ADK's agent name line in a system instruction.
var internalName = regexp.MustCompile(`[Yy]our internal name is "?([A-Za-z0-9_.-]+)`)

// AgentName is the name of the agent on the wire, from a body's decoded
// labels and system instruction: ADK's adk_agent_name label, or the
// internal-name line of its instruction; "" when neither names one.
func AgentName(labels, systemInstruction any) string {
	if labels, ok := labels.(map[string]any); ok {
		if name, ok := labels["adk_agent_name"].(string); ok && name != "" {
			return name
		}
	}
	for _, text := range InstructionTexts(systemInstruction) {
		if m := internalName.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return ""
}

// InstructionTexts lists the texts of a decoded systemInstruction: a
// content's text parts, or a bare string as some clients send.
func InstructionTexts(si any) []string {
	var texts []string
	switch si := si.(type) {
	case string:
		texts = append(texts, si)
	case map[string]any:
		parts, _ := si["parts"].([]any)
		for _, p := range parts {
			if part, ok := p.(map[string]any); ok {
				if text, ok := part["text"].(string); ok {
					texts = append(texts, text)
				}
			}
		}
	}
	return texts
}

// functionCallKey is in every answer that makes a function call (Gemini
// never escapes the characters of a key).
var functionCallKey = []byte(`"functionCall"`)

// EachResponseCall calls fn with the id, name and raw arguments of every
// function call in a model response body, or in one SSE event's JSON
// payload, in order: Gemini's functionCall parts, or a chat completion's
// tool_calls (openai.go). A payload without one (most events and answers)
// is not parsed.
func EachResponseCall(body []byte, fn func(id, name string, args json.RawMessage)) {
	if eachChatCall(body, fn) {
		return
	}
	if !bytes.Contains(body, functionCallKey) {
		return
	}
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					FunctionCall *struct {
						ID   string          `json:"id"`
						Name string          `json:"name"`
						Args json.RawMessage `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if json.Unmarshal(body, &resp) != nil {
		return
	}
	for _, c := range resp.Candidates {
		for _, p := range c.Content.Parts {
			if fc := p.FunctionCall; fc != nil {
				fn(fc.ID, fc.Name, fc.Args)
			}
		}
	}
}

// HistoryOf is the turns of a decoded generateContent body (nil when it
// has none).
func HistoryOf(body any) []any {
	m, _ := body.(map[string]any)
	contents, _ := m[GeminiHistory].([]any)
	return contents
}

// AnswerContents are the content of every candidate of a decoded
// generateContent answer (or one event of a stream).
func AnswerContents(answer any) []map[string]any {
	m, _ := answer.(map[string]any)
	cands, _ := m["candidates"].([]any)
	var out []map[string]any
	for _, c := range cands {
		cand, _ := c.(map[string]any)
		content, _ := cand["content"].(map[string]any)
		out = append(out, content)
	}
	return out
}

// EachPart calls fn with each part of a decoded content: its non-thought
// text (ok false when it has none), and the function call and function
// response it holds (nil when none).
func EachPart(content any, fn func(text string, hasText bool, call, response map[string]any)) {
	c, _ := content.(map[string]any)
	parts, _ := c["parts"].([]any)
	for _, p := range parts {
		part, _ := p.(map[string]any)
		text, hasText := part["text"].(string)
		hasText = hasText && part["thought"] != true
		call, _ := part["functionCall"].(map[string]any)
		response, _ := part["functionResponse"].(map[string]any)
		fn(text, hasText, call, response)
	}
}

// TextAnswer is a generateContent answer body giving text as the model's
// whole final turn.
func TextAnswer(text string) []byte {
	body, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{
		"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
		"finishReason": "STOP",
	}}})
	return body
}
