// What one model call reveals about its agent and history, read from the
// request alone, and the tool calls its response made.

package conversation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
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
	// this way. Whether it is one depends on a pending call (see Organizer).
	TaskArgs string
	// AnswersTool is set when the newest content is a user turn made only
	// of function responses: the agent's next step after a tool, or a
	// user answering a long-running tool.
	AnswersTool bool
}

var generatePath = regexp.MustCompile(`/models/([^/:]+):(generateContent|streamGenerateContent)$`)

// IsModelCall reports whether a request path is a generateContent or
// streamGenerateContent call.
func IsModelCall(path string) bool { return generatePath.MatchString(path) || isOtherModelCall(path) }

// modelCallModel is the model of a generateContent or
// streamGenerateContent path, as generatePath reads it, without a regular
// expression: every forwarded call asks.
func modelCallModel(path string) (string, bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", false
	}
	model, method, ok := strings.Cut(path[i+len("/models/"):], ":")
	if !ok || model == "" || strings.ContainsAny(model, "/:") || method != "generateContent" && method != "streamGenerateContent" {
		return "", false
	}
	return model, true
}

// Analyze reads a model call with m's ignored fields left out, so what
// groups and what matches never disagree. ok is false for any other request
// (countTokens, embeddings, listing models...) or a body that is not a JSON
// object.
func Analyze(m *matcher.Matcher, path string, body []byte) (*Call, bool) {
	model, ok := modelCallModel(path)
	if !ok {
		if model, body, ok = asGenerateContent(path, body); !ok { // dialects.go
			return nil, false
		}
	}
	req, ok := m.ReadBodyBriefly(body)
	if !ok {
		return nil, false
	}
	c := analyze(model, req) // the call keeps nothing of the read
	req.Release()
	return c, true
}

// AnalyzeRead is Analyze that also hands back the body as it was read,
// whose fingerprint (wire.Body's) then costs one hash: placing the
// call and matching it read the body once between them.
func AnalyzeRead(m *matcher.Matcher, path string, body []byte) (*Call, wire.Body, bool) {
	model, ok := modelCallModel(path)
	if !ok {
		// Another dialect: placed by its generateContent form, matched by
		// the body as sent.
		c, ok := Analyze(m, path, body)
		if !ok {
			return nil, nil, false
		}
		req, ok := m.ReadBody(body)
		return c, req, ok
	}
	req, ok := m.ReadBody(body)
	if !ok {
		return nil, nil, false
	}
	return analyze(model, req), req, true
}

// analyze reads the call of model from its body, read once. The keys hash
// canonical bytes found in the read; only the turns (and, for the agent's
// name, the labels and instruction) are decoded.
func analyze(model string, req wire.Body) *Call {
	contents, _ := req.Tree(wire.GeminiHistory).([]any)
	c := &Call{Model: model, UserTurn: -1}
	c.AgentKey = hashParts(c.Model, req.Member(wire.GeminiInstruction), req.Member(wire.GeminiTools))
	c.AgentName = wire.AgentName(req.Tree(wire.GeminiLabels), req.Tree(wire.GeminiInstruction))
	for i, content := range contents {
		if text, ok := wire.UserText(content); ok {
			if c.UserTurn >= 0 {
				c.EarlierUserTexts = append(c.EarlierUserTexts, c.UserText)
			}
			c.UserTurn, c.UserText = i, text
		}
	}
	if c.UserTurn == 0 && len(c.EarlierUserTexts) == 0 {
		if args, ok := parseObject(c.UserText); ok {
			if _, isObject := args.(map[string]any); isObject {
				c.TaskArgs = canonical(args)
			}
		}
	}
	c.AnswersTool = len(contents) > 0 && wire.OnlyFunctionResponses(contents[len(contents)-1])
	// Without a user turn the whole history is steps and the key is the
	// agent alone.
	c.Step = len(contents) - c.UserTurn - 1
	c.Key = historyKey(c.AgentKey, req, c.UserTurn+1)
	return c
}

// AgentToolArgs is, when the only user message is text, the arguments
// ({"request": text}) with which an agent used as a tool (ADK's AgentTool)
// is handed its task when it has no input schema, else "". Whether it is
// one depends on a pending call of the agent's name. It is written out
// only when asked: a first turn is often kilobytes, and most calls have
// no pending call to compare it with.
func (c *Call) AgentToolArgs() string {
	if c.UserTurn != 0 || len(c.EarlierUserTexts) > 0 || c.TaskArgs != "" {
		return ""
	}
	// canonical(map[string]any{"request": c.UserText}), written directly
	return string(append(matcher.AppendCanonical([]byte(`{"request":`), c.UserText), '}'))
}

// parseObject is matcher.ParseJSON of text when it can be a JSON object;
// plain text (nearly every user turn) is not copied to find out.
func parseObject(text string) (any, bool) {
	if !strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") {
		return nil, false
	}
	return matcher.ParseJSON([]byte(text))
}

// Slot names the place a call takes: its per-agent key and its step. Two
// calls with one slot are the same step of the same agent's turn; replay
// looks a missed call's recording up by it, and the organizer counts a
// step as taken by it.
func (c *Call) Slot() string { return c.Key + "/" + strconv.Itoa(c.Step) }

// canonical renders a decoded value canonically; absent values give "".
func canonical(v any) string {
	if v == nil {
		return ""
	}
	return string(matcher.AppendCanonical(nil, v))
}

// hashParts is hashOf(lead, parts...) over canonical JSON values, a null
// or absent one (nil) hashing as empty: an agent is keyed this way.
func hashParts(lead string, parts ...[]byte) string {
	buf := keyBufs.Get().(*[]byte)
	defer keyBufs.Put(buf)
	b := append(append((*buf)[:0], lead...), 0)
	for _, p := range parts {
		b = append(appendPart(b, p), 0)
	}
	*buf = b
	return sumKey(b)
}

// historyKey is hashParts(agentKey, the first n turns of req's contents...):
// an agent's history up to its user turn.
func historyKey(agentKey string, req wire.Body, n int) string {
	buf := keyBufs.Get().(*[]byte)
	defer keyBufs.Put(buf)
	b := append(append((*buf)[:0], agentKey...), 0)
	for i := range min(n, req.Len(wire.GeminiHistory)) {
		b = append(appendPart(b, req.Element(wire.GeminiHistory, i)), 0)
	}
	*buf = b
	return sumKey(b)
}

func appendPart(b, part []byte) []byte {
	if string(part) == "null" {
		return b
	}
	return append(b, part...)
}

func sumKey(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// keyBufs keeps the keys' buffers between calls.
var keyBufs = sync.Pool{New: func() any { return new([]byte) }}

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
// one SSE event's JSON payload (wire.EachResponseCall), their arguments
// canonical.
func ResponseCalls(body []byte) []FunctionCall {
	var out []FunctionCall
	wire.EachResponseCall(body, func(id, name string, raw json.RawMessage) {
		args := "{}"
		if v, ok := matcher.ParseJSON(raw); ok {
			args = canonical(v)
		}
		out = append(out, FunctionCall{ID: id, Name: name, Args: args})
	})
	return out
}

// exchangeCalls lists the function calls of a recorded response, across
// all its SSE events.
func exchangeCalls(resp *cassettes.Response) []FunctionCall {
	var out []FunctionCall
	for _, payload := range wire.Payloads(resp) {
		out = append(out, ResponseCalls(payload)...)
	}
	return out
}
