// Gemini's OpenAI-compatible endpoint: chat completions (JSON, and SSE
// chunks ending in [DONE]), models and embeddings, on the Developer API's
// /{v}/openai/ and Vertex AI's /{v}/projects/{p}/locations/{l}/endpoints/
// openapi/. A chat completion is read into the same step and request as
// generateContent, so every command treats the two alike.

package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

type openai struct{}

func (openai) Name() string { return "openai" }

// openaiRoots are the path segments the compatibility layer lives under:
// the Developer API's (/v1beta/openai/...) and Vertex AI's
// (/v1/projects/P/locations/L/endpoints/openapi/...).
var openaiRoots = [...]string{"/openai/", "/endpoints/openapi/"}

// OpenAIRest is the part of path after the compatibility layer's root
// ("chat/completions", "models/gemini-2.5-flash", "embeddings"), and
// whether path is under one; the root must follow a version segment.
func OpenAIRest(path string) (rest string, vertex, ok bool) {
	if !strings.HasPrefix(path, "/v1") {
		return "", false, false
	}
	for _, root := range openaiRoots {
		if i := strings.Index(path, root); i >= 0 {
			return path[i+len(root):], root == "/endpoints/openapi/", true
		}
	}
	return "", false, false
}

// Recognise: POST .../chat/completions is a model call; the model list,
// one model and embeddings are Other. The model of a chat completion is in
// its body, not its path.
func (openai) Recognise(req *cassettes.Request) (Call, bool) {
	rest, vertex, ok := OpenAIRest(req.Path)
	if !ok {
		return Call{}, false
	}
	c := Call{Dialect: openai{}, Kind: Other, Vertex: vertex}
	switch {
	case rest == "chat/completions":
		c.Method = "chat.completions"
		if req.Method == "POST" {
			c.Kind = Model
		}
	case rest == "embeddings":
		c.Method = "embeddings"
	case rest == "models":
		c.Method = "models.list"
	case strings.HasPrefix(rest, "models/"):
		c.Method, c.Model = "models.get", strings.TrimPrefix(rest, "models/")
	default:
		c.Method = rest
	}
	return c, true
}

// The shapes of the chat completion API a step reads (openai-node's
// ChatCompletion, ChatCompletionChunk and their messages).
type (
	openaiToolCall struct {
		Index    *int   `json:"index"` // chunks only: which call a delta adds to
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"` // a JSON object, as a string
		} `json:"function"`
	}
	openaiMessage struct {
		Role       string           `json:"role"`
		Content    json.RawMessage  `json:"content"` // a string, an array of parts, or null
		Name       string           `json:"name"`
		ToolCalls  []openaiToolCall `json:"tool_calls"`
		ToolCallID string           `json:"tool_call_id"`
	}
	openaiUsage struct {
		PromptTokens        int32 `json:"prompt_tokens"`
		CompletionTokens    int32 `json:"completion_tokens"`
		TotalTokens         int32 `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int32 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens int32 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	}
	// openaiCompletion is a whole answer (object "chat.completion") or one
	// chunk of a stream ("chat.completion.chunk", a delta for a message).
	openaiCompletion struct {
		Model   string `json:"model"`
		Choices []struct {
			Index        int            `json:"index"`
			Message      *openaiMessage `json:"message"`
			Delta        *openaiMessage `json:"delta"`
			FinishReason *string        `json:"finish_reason"`
		} `json:"choices"`
		Usage *openaiUsage `json:"usage"`
	}
)

func (u *openaiUsage) usage() *Usage {
	out := &Usage{Prompt: u.PromptTokens, Candidates: u.CompletionTokens, Total: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.Cached = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.Thoughts = d.ReasoningTokens
	}
	return out
}

// openaiFinish maps a finish_reason to Gemini's, so a step reads alike on
// both endpoints: "tool_calls" is Gemini's STOP with function calls.
func openaiFinish(reason string) string {
	switch reason {
	case "stop", "tool_calls", "function_call":
		return "STOP"
	case "length":
		return "MAX_TOKENS"
	case "content_filter":
		return "SAFETY"
	}
	return strings.ToUpper(reason)
}

// Step reads a chat completion: the tool messages of the turn it answers,
// and from its answer (or each chunk of a stream in turn, [DONE] ending it)
// the first choice's text, tool calls (a stream's deltas put together by
// their index: id and name from the first, arguments appended), finish
// reason, usage and model.
func (openai) Step(x *cassettes.Exchange) Step {
	t := Step{Latency: x.Response.Latency}
	t.ToolResults = openaiToolResults(x.Request.Body)
	if x.Response.Status != 200 {
		return t
	}
	var text strings.Builder
	type pending struct {
		id, name string
		args     strings.Builder
	}
	var calls []*pending
	byIndex := map[int]*pending{}
	for _, payload := range Payloads(&x.Response) {
		var c openaiCompletion
		if p := bytes.TrimLeft(payload, " \t\r\n"); len(p) == 0 || p[0] != '{' || json.Unmarshal(payload, &c) != nil {
			continue // [DONE], or not a completion
		}
		if c.Usage != nil {
			t.Usage = c.Usage.usage()
		}
		if c.Model != "" {
			t.ModelVersion = c.Model
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue // one candidate, as Gemini's steps read
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				t.FinishReason = openaiFinish(*ch.FinishReason)
			}
			m := ch.Message
			if m == nil {
				m = ch.Delta
			}
			if m == nil {
				continue
			}
			text.WriteString(openaiText(m.Content, ""))
			for i, tc := range m.ToolCalls {
				key := i
				if tc.Index != nil {
					key = *tc.Index
				} else if ch.Delta != nil {
					key = len(calls) // a stream that does not index its calls sends each whole
				}
				p := byIndex[key]
				if p == nil || ch.Message != nil {
					p = &pending{}
					byIndex[key] = p
					calls = append(calls, p)
				}
				if p.id == "" {
					p.id = tc.ID
				}
				if p.name == "" {
					p.name = tc.Function.Name
				}
				p.args.WriteString(tc.Function.Arguments)
			}
		}
	}
	t.Text = text.String()
	for _, p := range calls {
		t.ToolCalls = append(t.ToolCalls, ToolCall{ID: p.id, Name: p.name, Args: openaiArgs(p.args.String())})
	}
	return t
}

// chatToolCallsKey is in every chat completion, and every chunk of one,
// that calls a tool.
var chatToolCallsKey = []byte(`"tool_calls"`)

// eachChatCall is EachResponseCall for a chat completion or one chunk of
// its stream: fn gets each tool call of the first choice, its arguments
// (a JSON object sent as a string) as they were sent. A chunk's delta that
// only adds to an earlier call's arguments (no name) is no call of its
// own. It reports whether body was a chat completion that called a tool;
// a body without tool_calls is not parsed.
func eachChatCall(body []byte, fn func(id, name string, args json.RawMessage)) bool {
	if !bytes.Contains(body, chatToolCallsKey) {
		return false
	}
	var c openaiCompletion
	if json.Unmarshal(body, &c) != nil {
		return false
	}
	called := false
	for _, ch := range c.Choices {
		m := ch.Message
		if m == nil {
			m = ch.Delta
		}
		if ch.Index != 0 || m == nil {
			continue // one candidate, as a step reads
		}
		for _, tc := range m.ToolCalls {
			if tc.Function.Name != "" {
				called = true
				fn(tc.ID, tc.Function.Name, json.RawMessage(tc.Function.Arguments))
			}
		}
	}
	return called
}

// openaiArgs reads a call's arguments, a JSON object sent as a string;
// arguments that are not one are kept whole under "arguments", so a step
// never loses what the model said.
func openaiArgs(s string) map[string]any {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}
	}
	var args map[string]any
	if json.Unmarshal([]byte(s), &args) == nil && args != nil {
		return args
	}
	return map[string]any{"arguments": s}
}

// openaiResult reads a tool message's content as the result of its call:
// a JSON object as that object, any other content under "result" (as ADK
// wraps a tool's value that is not a dict).
func openaiResult(content json.RawMessage) map[string]any {
	text := openaiText(content, "")
	var obj map[string]any
	if json.Unmarshal([]byte(text), &obj) == nil && obj != nil {
		return obj
	}
	var v any
	if json.Unmarshal([]byte(text), &v) == nil && v != nil {
		return map[string]any{"result": v}
	}
	return map[string]any{"result": text}
}

// openaiText is a message's content as text: the string, or the text
// parts of an array joined by sep; null and other parts give "".
func openaiText(content json.RawMessage, sep string) string {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] == 'n' {
		return ""
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, sep)
}

// openaiToolResults reads the tool messages after the history's last
// assistant message: the results of the previous step's calls, each named
// by the call it answers.
func openaiToolResults(body []byte) []ToolResult {
	msgs, ok := openaiMessages(body)
	if !ok {
		return nil
	}
	first := len(msgs)
	for first > 0 && msgs[first-1].Role == "tool" {
		first--
	}
	if first == len(msgs) {
		return nil
	}
	names := openaiCallNames(msgs[:first])
	var out []ToolResult
	for _, m := range msgs[first:] {
		out = append(out, ToolResult{ID: m.ToolCallID, Name: openaiResultName(m, names), Response: openaiResult(m.Content)})
	}
	return out
}

func openaiMessages(body []byte) ([]openaiMessage, bool) {
	var req struct {
		Messages []openaiMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	return req.Messages, true
}

// openaiCallNames maps each tool call id of msgs to its function's name:
// a tool message names only the id of the call it answers.
func openaiCallNames(msgs []openaiMessage) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Function.Name
		}
	}
	return names
}

func openaiResultName(m openaiMessage, names map[string]string) string {
	if n := names[m.ToolCallID]; n != "" {
		return n
	}
	return m.Name
}

// Request reads a chat completion's body as generateContent's: system and
// developer messages make the system instruction; user messages are user
// turns, assistant messages model turns (text, then a function call per
// tool call), and a run of tool messages one user turn of function
// responses, as Gemini's history holds them.
func (openai) Request(req *cassettes.Request) (Request, bool) {
	var body struct {
		Model    string          `json:"model"`
		Messages []openaiMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if json.Unmarshal(req.Body, &body) != nil {
		return Request{}, false
	}
	r := Request{Model: body.Model}
	names := openaiCallNames(body.Messages)
	var system []Part
	for _, m := range body.Messages {
		switch m.Role {
		case "system", "developer":
			system = append(system, Part{Text: openaiText(m.Content, "\n")})
		case "assistant":
			c := Content{Role: "model"}
			if text := openaiText(m.Content, "\n"); text != "" {
				c.Parts = append(c.Parts, Part{Text: text})
			}
			for _, tc := range m.ToolCalls {
				c.Parts = append(c.Parts, Part{FunctionCall: &ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: openaiArgs(tc.Function.Arguments)}})
			}
			r.Contents = append(r.Contents, c)
		case "tool":
			p := Part{FunctionResponse: &ToolResult{ID: m.ToolCallID, Name: openaiResultName(m, names), Response: openaiResult(m.Content)}}
			if n := len(r.Contents); n > 0 && r.Contents[n-1].Role == "user" && len(r.Contents[n-1].Parts) > 0 && r.Contents[n-1].Parts[0].FunctionResponse != nil {
				r.Contents[n-1].Parts = append(r.Contents[n-1].Parts, p)
			} else {
				r.Contents = append(r.Contents, Content{Role: "user", Parts: []Part{p}})
			}
		default: // user, and roles this reader does not know, as the user's
			r.Contents = append(r.Contents, Content{Role: "user", Parts: []Part{{Text: openaiText(m.Content, "\n")}}})
		}
	}
	if len(system) > 0 {
		r.System = &Content{Parts: system}
	}
	for _, t := range body.Tools {
		if t.Function.Name == "" {
			continue
		}
		params := bytes.TrimSpace(t.Function.Parameters)
		if bytes.Equal(params, []byte("null")) {
			params = nil
		}
		r.Tools = append(r.Tools, Declaration{Name: t.Function.Name, Description: t.Function.Description, Parameters: bytes.Clone(params)})
	}
	return r, true
}

func (openai) Tool(*cassettes.Exchange) (ToolExchange, bool) { return ToolExchange{}, false }

func (openai) Matching() *Matching { return &openaiMatching }

// openaiMatching: messages are named by role (messages[user#1] is the
// first user message), tools and tool calls by their function's name
// (tools[get_weather].function.description). Arguments and tool results
// are JSON inside strings and compared as the JSON they hold. Call ids
// are the server's, echoed from replayed answers; they are left out as
// Gemini's are.
var openaiMatching = Matching{
	Volatile: []string{
		"messages[*].tool_calls[*].id",
		"messages[*].tool_call_id",
	},
	JSONStrings: []string{
		"messages[*].tool_calls[*].function.arguments",
		"messages[*].content",
	},
	ElementName: openaiElementName,
	Array:       openaiArray,
	Group: func(field string) string {
		switch field {
		case "messages":
			return "contents"
		case "tools", "tool_choice":
			return "tools"
		case "temperature", "top_p", "max_tokens", "max_completion_tokens", "response_format", "reasoning_effort",
			"n", "stop", "seed", "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "logit_bias",
			"parallel_tool_calls", "modalities", "audio", "prediction", "service_tier":
			return "generation_config"
		}
		return "" // Gemini's fields (toolConfig, labels...) are its own
	},
}

// openaiArray: the history (messages) is a sequence of messages, the same
// only when equal, an edited one diffed field by field, each addressed by
// its role (messages[user#2]); a chat completion's tools are a sequence
// told apart by function name, when every element is one
// ({"type": "function", "function": {"name"...}}); a message's tool calls
// keep their positions, addressed by their function's name.
func openaiArray(path string, recorded, got []any) Array {
	switch {
	case path == "messages":
		return Array{Aligned: true, Paired: true, Labelled: true}
	case path == "tools" && chatFunctions(recorded, got):
		return Array{Aligned: true, Key: func(v any) (string, bool) {
			name := openaiElementName(v)
			return name, name != ""
		}}
	case strings.HasPrefix(path, "messages[") && strings.HasSuffix(path, "].tool_calls"):
		return Array{Labelled: true}
	}
	return Array{}
}

// chatFunctions reports whether every element of both arrays is a chat
// tool with a function name.
func chatFunctions(a, b []any) bool {
	for _, list := range [2][]any{a, b} {
		for _, v := range list {
			m, _ := v.(map[string]any)
			if f, ok := m["function"].(map[string]any); !ok || f["name"] == nil {
				return false
			}
		}
	}
	return len(a)+len(b) > 0
}

// openaiElementName is the name of the function a tool or tool call is
// of, else a message's role, else "".
func openaiElementName(v any) string {
	m, _ := v.(map[string]any)
	if f, ok := m["function"].(map[string]any); ok {
		name, _ := f["name"].(string)
		return name
	}
	if role, ok := m["role"].(string); ok && m["parts"] == nil { // not a Gemini content
		return role
	}
	return ""
}

// ChatErrorMessage is the message of an error answer on the endpoint:
// {"error": {"message"}} (OpenAI's shape, and adkproxy's own errors), or
// the same in a one-element array (how Gemini's compatibility layer
// answers); else the body as text, trimmed.
func ChatErrorMessage(body []byte) string {
	type errorBody struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	var one errorBody
	if json.Unmarshal(body, &one) == nil && one.Error != nil {
		return one.Error.Message
	}
	var list []errorBody
	if json.Unmarshal(body, &list) == nil && len(list) > 0 && list[0].Error != nil {
		return list[0].Error.Message
	}
	return strings.TrimSpace(string(body))
}

// chatConfigNames are the chat completion fields Gemini's compatibility
// layer maps onto generateContent's generationConfig, by Gemini's name.
var chatConfigNames = map[string]string{"temperature": "temperature", "top_p": "topP", "max_tokens": "maxOutputTokens",
	"max_completion_tokens": "maxOutputTokens", "stop": "stopSequences", "seed": "seed", "n": "candidateCount",
	"presence_penalty": "presencePenalty", "frequency_penalty": "frequencyPenalty"}

// ChatGenerationConfig is a chat completion request's settings as
// generateContent's generationConfig: each field the compatibility layer
// maps under Gemini's name (a stop string as a one-element list, a JSON
// response_format as responseMimeType application/json), any other
// setting under its own; numbers as json.Number. It is nil when the
// request has none besides its model, messages, tools and stream options.
func ChatGenerationConfig(body []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var fields map[string]any
	if dec.Decode(&fields) != nil {
		return nil
	}
	var out map[string]any
	for k, v := range fields {
		switch k {
		case "model", "messages", "tools", "stream", "stream_options":
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		name, ok := chatConfigNames[k]
		switch {
		case k == "stop":
			if s, isString := v.(string); isString {
				v = []any{s}
			}
		case k == "response_format":
			if f, _ := v.(map[string]any); f["type"] == "json_object" || f["type"] == "json_schema" {
				name, ok, v = "responseMimeType", true, "application/json"
			}
		}
		if !ok {
			name = k
		}
		out[name] = v
	}
	return out
}

// ChatAnswerAsGemini is a chat completion's answer (whole or streamed)
// as a generateContent answer body: its step's text and function calls
// as one candidate's parts, its finish reason in Gemini's words, usage
// and model version; for readers that show an answer in Gemini's shape.
func ChatAnswerAsGemini(x *cassettes.Exchange) []byte {
	st := openai{}.Step(x)
	parts := []any{}
	if st.Text != "" {
		parts = append(parts, map[string]any{"text": st.Text})
	}
	for _, c := range st.ToolCalls {
		call := map[string]any{"name": c.Name, "args": c.Args}
		if c.ID != "" {
			call["id"] = c.ID
		}
		parts = append(parts, map[string]any{"functionCall": call})
	}
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if st.FinishReason != "" {
		cand["finishReason"] = st.FinishReason
	}
	resp := map[string]any{"candidates": []any{cand}}
	if u := st.Usage; u != nil {
		usage := map[string]any{"promptTokenCount": u.Prompt, "candidatesTokenCount": u.Candidates, "totalTokenCount": u.Total}
		if u.Cached > 0 {
			usage["cachedContentTokenCount"] = u.Cached
		}
		if u.Thoughts > 0 {
			usage["thoughtsTokenCount"] = u.Thoughts
		}
		resp["usageMetadata"] = usage
	}
	if st.ModelVersion != "" {
		resp["modelVersion"] = st.ModelVersion
	}
	b, _ := json.Marshal(resp)
	return b
}
