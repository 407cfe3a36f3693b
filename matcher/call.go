package matcher

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
)

// Call is what one model call (generateContent or streamGenerateContent)
// reveals about the agent that made it, read from the request alone.
type Call struct {
	Model string
	// AgentKey identifies the agent: model, system instruction and tools.
	// Sub-agents differ from their parents here.
	AgentKey string
	// AgentName is the name found on the wire (Vertex label or ADK's
	// "Your internal name is" line), or "".
	AgentName string
	// UserTurn is the index in contents of the newest user turn, or -1.
	UserTurn int
	UserText string
	// EarlierUserTexts are the user turns before UserTurn, oldest first:
	// they place the call in its session.
	EarlierUserTexts []string
	// Step counts the contents after the user turn: 0 for the first call
	// of a turn, 2 after one call/response pair.
	Step int
	// Key is the per-agent match key: agent plus history up to and
	// including the user turn. Every step of one agent in one invocation
	// shares it.
	Key string
	// TaskArgs is set when the only user message is a JSON object: ADK
	// hands a delegated task agent its caller's function-call arguments
	// this way. Whether it is one depends on a pending call (see Organiser).
	TaskArgs string
}

var generatePath = regexp.MustCompile(`/models/([^/:]+):(generateContent|streamGenerateContent)$`)

// internalName finds ADK's agent name line in a system instruction.
var internalName = regexp.MustCompile(`[Yy]our internal name is "?([A-Za-z0-9_.-]+)`)

// contextRelay is how ADK shows one agent's output to another: user-role
// text that starts with "For context:". It is not something the user said.
const contextRelay = "For context:"

// wireRequest is the part of a Gemini request the analysis reads.
type wireRequest struct {
	Contents          []json.RawMessage          `json:"contents"`
	SystemInstruction json.RawMessage            `json:"systemInstruction"`
	Tools             json.RawMessage            `json:"tools"`
	Labels            map[string]json.RawMessage `json:"labels"`
}

type wireContent struct {
	Role  string     `json:"role"`
	Parts []wirePart `json:"parts"`
}

type wirePart struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

// AnalyzeCall reads a model call. ok is false for any other request
// (countTokens, embeddings, listing models...) or a body that is not JSON.
func AnalyzeCall(path string, body []byte) (c *Call, ok bool) {
	m := generatePath.FindStringSubmatch(path)
	if m == nil {
		return nil, false
	}
	var req wireRequest
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	c = &Call{Model: m[1], UserTurn: -1}
	c.AgentKey = hashOf(c.Model, canonicalRaw(req.SystemInstruction), canonicalRaw(req.Tools))
	c.AgentName = agentName(&req)

	for i, raw := range req.Contents {
		var content wireContent
		if json.Unmarshal(raw, &content) != nil {
			return nil, false
		}
		if text, ok := userText(content); ok {
			if c.UserTurn >= 0 {
				c.EarlierUserTexts = append(c.EarlierUserTexts, c.UserText)
			}
			c.UserTurn, c.UserText = i, text
		}
	}
	if c.UserTurn == 0 && len(c.EarlierUserTexts) == 0 && isJSONObject(c.UserText) {
		c.TaskArgs = canonicalRaw(json.RawMessage(c.UserText))
	}
	// Without a user turn the whole history is steps and the key is the
	// agent alone.
	prefix := req.Contents[:c.UserTurn+1]
	c.Step = len(req.Contents) - c.UserTurn - 1
	parts := []string{c.AgentKey}
	for _, raw := range prefix {
		parts = append(parts, canonicalRaw(raw))
	}
	c.Key = hashOf(parts...)
	return c, true
}

// userText returns the text of a content that is a user turn: user role
// (or none, which Gemini reads as user), some non-thought text, no function
// response, and not a context relay.
func userText(c wireContent) (string, bool) {
	if c.Role != "" && c.Role != "user" {
		return "", false
	}
	var texts []string
	for _, p := range c.Parts {
		if p.FunctionResponse != nil || p.FunctionCall != nil {
			return "", false
		}
		if p.Text != nil && !p.Thought {
			texts = append(texts, *p.Text)
		}
	}
	if len(texts) == 0 || strings.HasPrefix(strings.TrimSpace(texts[0]), contextRelay) {
		return "", false
	}
	return strings.Join(texts, "\n"), true
}

func agentName(req *wireRequest) string {
	if raw, ok := req.Labels["adk_agent_name"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	var instruction wireContent
	if json.Unmarshal(req.SystemInstruction, &instruction) != nil {
		// Some clients send the instruction as a bare string.
		var text string
		if json.Unmarshal(req.SystemInstruction, &text) != nil {
			return ""
		}
		instruction.Parts = []wirePart{{Text: &text}}
	}
	for _, p := range instruction.Parts {
		if p.Text != nil {
			if m := internalName.FindStringSubmatch(*p.Text); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return false
	}
	var v map[string]any
	return json.Unmarshal([]byte(s), &v) == nil
}

// canonicalRaw renders JSON in canonical form, or returns it unchanged when
// it does not parse (absent fields give "").
func canonicalRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if v, ok := ParseJSON(raw); ok {
		return string(AppendCanonical(nil, v))
	}
	return string(raw)
}

func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// FunctionCall is a tool call found in a model response.
type FunctionCall struct {
	ID   string
	Name string
	// Args is the canonical JSON of the arguments ("{}" when none).
	Args string
}

// ResponseCalls lists the function calls in a model response body, or in
// one SSE event's JSON payload.
func ResponseCalls(body []byte) []FunctionCall {
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
		return nil
	}
	var out []FunctionCall
	for _, c := range resp.Candidates {
		for _, p := range c.Content.Parts {
			if fc := p.FunctionCall; fc != nil {
				args := canonicalRaw(fc.Args)
				if args == "" || args == "null" {
					args = "{}"
				}
				out = append(out, FunctionCall{ID: fc.ID, Name: fc.Name, Args: args})
			}
		}
	}
	return out
}
