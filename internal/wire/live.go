// The Live API: one WebSocket connection per session, JSON messages in
// frames both ways (clients spell keys in snake_case or camelCase). Its
// steps are cut from the frames (LiveSteps, live_steps.go), each shaped
// like a generateContent call on the connection's path, and read as one.

package wire

import (
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

type live struct{}

func (live) Name() string { return "live" }

// Recognise reads the Live API's WebSocket paths: the Developer API's
// GenerativeService.BidiGenerateContent (and ...Constrained, for ephemeral
// tokens) and Vertex AI's LlmBidiService/BidiGenerateContent.
func (live) Recognise(req *cassettes.Request) (Call, bool) {
	if !IsLivePath(req.Path) {
		return Call{}, false
	}
	return Call{Dialect: live{}, Kind: Live, Method: "BidiGenerateContent", Vertex: strings.Contains(req.Path, ".aiplatform.")}, true
}

// IsLivePath reports whether path is one of the Live API's.
func IsLivePath(path string) bool {
	const prefix = "/ws/google."
	i := strings.Index(path, prefix)
	if i < 0 {
		return false
	}
	rest := path[i+len(prefix):]
	if svc, ok := strings.CutPrefix(rest, "ai.generativelanguage."); ok {
		v, method, ok := strings.Cut(svc, ".GenerativeService.")
		return ok && isVersion(v) && (method == "BidiGenerateContent" || method == "BidiGenerateContentConstrained")
	}
	if svc, ok := strings.CutPrefix(rest, "cloud.aiplatform."); ok {
		v, method, ok := strings.Cut(svc, ".LlmBidiService/")
		return ok && isVersion(v) && method == "BidiGenerateContent"
	}
	return false
}

// isVersion: v1, v1beta, v1alpha...
func isVersion(v string) bool {
	if len(v) < 2 || v[0] != 'v' {
		return false
	}
	for _, c := range v[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// Step reads a step cut from a connection, shaped like generateContent.
func (live) Step(x *cassettes.Exchange) Step { return gemini{}.Step(x) }

// Request reads a step cut from a connection, shaped like generateContent.
func (live) Request(req *cassettes.Request) (Request, bool) { return gemini{}.Request(req) }

func (live) Tool(*cassettes.Exchange) (ToolExchange, bool) { return ToolExchange{}, false }

// Matching: a step's body is generateContent's.
func (live) Matching() *Matching { return &geminiMatching }

// LiveMessage is one Live API message read from a frame, whichever
// spelling the client used. The fields of the kinds the frame is not are
// zero.
type LiveMessage struct {
	// Setup is the client's first message: the model, its system
	// instruction and tools.
	Setup *Request
	// ClientContent: turns the client sent, and whether its turn is done.
	ClientContent *struct {
		Turns        []Content
		TurnComplete bool
	}
	// RealtimeInput: typed text, or media (audio, video) as it streams.
	RealtimeInput *struct {
		Text  string
		Media bool
	}
	// ToolResponse: the client's results of the model's tool calls.
	ToolResponse []ToolResult
	// ServerContent: the model's parts, transcriptions, and whether its
	// turn is done.
	ServerContent *struct {
		Parts               []Part
		InputTranscription  string
		OutputTranscription string
		TurnComplete        bool
		Interrupted         bool
	}
	// ToolCall: the model's function calls.
	ToolCall []ToolCall
	Usage    *Usage
}

// ReadFrame reads a Live API frame's JSON; ok is false when it is not a
// JSON object.
func ReadFrame(data []byte) (m LiveMessage, ok bool) {
	var v map[string]any
	if json.Unmarshal(data, &v) != nil || v == nil {
		return LiveMessage{}, false
	}
	v = camelKeys(v)
	var msg struct {
		Setup *struct {
			Model             string          `json:"model"`
			SystemInstruction json.RawMessage `json:"systemInstruction"`
			Tools             json.RawMessage `json:"tools"`
		} `json:"setup"`
		ClientContent *struct {
			Turns        []json.RawMessage `json:"turns"`
			TurnComplete bool              `json:"turnComplete"`
		} `json:"clientContent"`
		RealtimeInput map[string]any `json:"realtimeInput"`
		ToolResponse  *struct {
			FunctionResponses []*geminiFunctionResponse `json:"functionResponses"`
		} `json:"toolResponse"`
		ServerContent *struct {
			ModelTurn *struct {
				Parts []json.RawMessage `json:"parts"`
			} `json:"modelTurn"`
			InputTranscription  *struct{ Text string } `json:"inputTranscription"`
			OutputTranscription *struct{ Text string } `json:"outputTranscription"`
			TurnComplete        bool                   `json:"turnComplete"`
			Interrupted         bool                   `json:"interrupted"`
		} `json:"serverContent"`
		ToolCall *struct {
			FunctionCalls []*geminiFunctionCall `json:"functionCalls"`
		} `json:"toolCall"`
		UsageMetadata *geminiUsage `json:"usageMetadata"`
	}
	b, _ := json.Marshal(v)
	if json.Unmarshal(b, &msg) != nil {
		return LiveMessage{}, true
	}
	if s := msg.Setup; s != nil {
		body, _ := json.Marshal(map[string]json.RawMessage{"systemInstruction": orNull(s.SystemInstruction), "tools": orNull(s.Tools)})
		r, _ := gemini{}.Request(&cassettes.Request{Body: body})
		r.Model = s.Model
		m.Setup = &r
	}
	if cc := msg.ClientContent; cc != nil {
		m.ClientContent = &struct {
			Turns        []Content
			TurnComplete bool
		}{TurnComplete: cc.TurnComplete}
		for _, raw := range cc.Turns {
			if c, ok := geminiContent(raw); ok {
				m.ClientContent.Turns = append(m.ClientContent.Turns, c)
			}
		}
	}
	if ri := msg.RealtimeInput; ri != nil {
		text, _ := ri["text"].(string)
		m.RealtimeInput = &struct {
			Text  string
			Media bool
		}{Text: text, Media: ri["audio"] != nil || ri["video"] != nil || ri["media"] != nil || ri["mediaChunks"] != nil}
	}
	if tr := msg.ToolResponse; tr != nil {
		for _, r := range tr.FunctionResponses {
			if r != nil {
				m.ToolResponse = append(m.ToolResponse, ToolResult{ID: r.ID, Name: r.Name, Response: r.Response})
			}
		}
	}
	if sc := msg.ServerContent; sc != nil {
		m.ServerContent = &struct {
			Parts               []Part
			InputTranscription  string
			OutputTranscription string
			TurnComplete        bool
			Interrupted         bool
		}{TurnComplete: sc.TurnComplete, Interrupted: sc.Interrupted}
		if sc.ModelTurn != nil {
			raw, _ := json.Marshal(map[string]any{"parts": sc.ModelTurn.Parts})
			c, _ := geminiContent(raw)
			m.ServerContent.Parts = c.Parts
		}
		if t := sc.InputTranscription; t != nil {
			m.ServerContent.InputTranscription = t.Text
		}
		if t := sc.OutputTranscription; t != nil {
			m.ServerContent.OutputTranscription = t.Text
		}
	}
	if tc := msg.ToolCall; tc != nil {
		for _, c := range tc.FunctionCalls {
			if c != nil {
				m.ToolCall = append(m.ToolCall, ToolCall{ID: c.ID, Name: c.Name, Args: c.Args})
			}
		}
	}
	if u := msg.UsageMetadata; u != nil {
		m.Usage = u.usage()
	}
	return m, true
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// liveDataKeys hold data a client or tool made up (function arguments
// and results), whose keys are kept as they are.
var liveDataKeys = map[string]bool{"args": true, "response": true}

// camelKeys rewrites a Live message's keys from snake_case to camelCase
// (turn_complete → turnComplete), as the API reads either spelling; keys
// inside function arguments and responses are the caller's data and are
// kept. When both spellings of a key are present the camelCase one wins.
func camelKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, c := range m {
		ck := textfmt.Camel(k)
		if _, taken := out[ck]; taken && ck != k {
			continue
		}
		if !liveDataKeys[ck] {
			c = CamelFrame(c)
		}
		out[ck] = c
	}
	return out
}

// CamelFrame is a decoded Live message (or any value in one) with its
// keys in camelCase, as camelKeys has them; the lists in v are rewritten
// in place.
func CamelFrame(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return camelKeys(t)
	case []any:
		for i, c := range t {
			t[i] = CamelFrame(c)
		}
	}
	return v
}
