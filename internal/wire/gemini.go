// The Gemini API (Developer API and Vertex AI): generateContent and its
// SSE stream, and the other model methods (countTokens, embeddings...)
// recognised by path.

package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

type gemini struct{}

func (gemini) Name() string { return "gemini" }

// Recognise reads .../models/{model}:{method}, on the Developer API's
// paths and Vertex AI's (/{v}/projects/{p}/locations/{l}/publishers/google/
// models/{model}:{method}). generateContent and streamGenerateContent are
// model calls; every other method is Other.
func (gemini) Recognise(req *cassettes.Request) (Call, bool) {
	path := req.Path
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return Call{}, false
	}
	model, method, ok := strings.Cut(path[i+len("/models/"):], ":")
	if !ok || model == "" || strings.ContainsAny(model, "/:") || method == "" {
		return Call{}, false
	}
	c := Call{Dialect: gemini{}, Kind: Other, Method: method, Model: model, Vertex: isVertex(path[:i])}
	if method == "generateContent" || method == "streamGenerateContent" {
		c.Kind = Model
	}
	return c, true
}

// isVertex: a path's prefix before /models/ names a project and location.
func isVertex(prefix string) bool {
	return strings.Contains(prefix, "/projects/") && strings.Contains(prefix, "/locations/")
}

// ModelCallModel is the model of a generateContent or
// streamGenerateContent path; ok is false for any other path. It is
// Recognise for callers that know the path is Gemini's.
func ModelCallModel(path string) (model string, ok bool) {
	c, ok := gemini{}.Recognise(&cassettes.Request{Path: path})
	return c.Model, ok && c.Kind == Model
}

// ModelOfPath reads the model from any Gemini request path, for answers
// without a modelVersion: .../models/gemini-2.5-flash:generateContent →
// gemini-2.5-flash ("" when the path names none).
func ModelOfPath(path string) string {
	_, rest, ok := strings.Cut(path, "models/")
	if !ok {
		return ""
	}
	model, _, _ := strings.Cut(rest, ":")
	return model
}

// Step reads a generateContent call: the function responses of the turn
// it answers, and from its answer (each event of a stream in turn) the
// function calls, the text, the finish reason, the usage (cumulative in
// a stream: the last one counts) and the model version. An answer that is
// not Gemini JSON (an error, another endpoint) gives none of those.
func (gemini) Step(x *cassettes.Exchange) Step {
	t := Step{Latency: x.Response.Latency}
	t.ToolResults = geminiToolResults(x.Request.Body)
	if x.Response.Status != 200 {
		return t
	}
	// The text is joined only when there are pieces to join: one piece is
	// the decoded string itself, not a copy of it (a long answer's text is
	// as large as its body; issue 39 item 5).
	var text strings.Builder
	var first string
	pieces := 0
	add := func(s string) {
		switch pieces {
		case 0:
			first = s
		case 1:
			text.WriteString(first)
			fallthrough
		default:
			text.WriteString(s)
		}
		pieces++
	}
	for _, payload := range Payloads(&x.Response) {
		var resp geminiResponse
		if p := bytes.TrimLeft(payload, " \t\r\n"); len(p) == 0 || p[0] != '{' || json.Unmarshal(payload, &resp) != nil {
			continue
		}
		if u := resp.UsageMetadata; u != nil {
			t.Usage = u.usage()
		}
		if resp.ModelVersion != "" {
			t.ModelVersion = resp.ModelVersion
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
			continue
		}
		cand := resp.Candidates[0]
		if cand.FinishReason != "" {
			t.FinishReason = cand.FinishReason
		}
		if cand.Content == nil {
			continue
		}
		// The text parts of one response are joined by line breaks, as ADK
		// joins a final response's parts; the chunks of a stream are pieces
		// of one text and are joined as they are.
		sep := ""
		for _, p := range cand.Content.Parts {
			switch {
			case p == nil:
			case p.FunctionCall != nil:
				t.ToolCalls = append(t.ToolCalls, ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
			case p.Text != "" && !p.Thought:
				if sep != "" {
					add(sep)
				}
				add(p.Text)
				sep = "\n"
			}
		}
	}
	if t.Text = first; pieces > 1 {
		t.Text = text.String()
	}
	return t
}

// geminiToolResults reads the function responses of the turn a model call
// answers: the contents after the history's last model turn. Every call
// carries its whole history, so the contents are kept raw and only that
// tail is decoded.
func geminiToolResults(body []byte) []ToolResult {
	contents, ok := rawElements(body, "contents")
	if !ok {
		var req struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(body, &req) != nil {
			return nil
		}
		for _, c := range req.Contents {
			contents = append(contents, c)
		}
	}
	var out []ToolResult
	for i := len(contents) - 1; i >= 0; i-- {
		var c struct {
			Role  string `json:"role"`
			Parts []*struct {
				FunctionResponse *geminiFunctionResponse `json:"functionResponse"`
			} `json:"parts"`
		}
		raw := bytes.TrimSpace(contents[i])
		if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &c) != nil || c.Role == "model" {
			break
		}
		var results []ToolResult
		for _, p := range c.Parts {
			if p != nil && p.FunctionResponse != nil {
				results = append(results, ToolResult{ID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Response: p.FunctionResponse.Response})
			}
		}
		out = append(results, out...)
	}
	return out
}

// Request reads a generateContent body whole.
func (gemini) Request(req *cassettes.Request) (Request, bool) {
	var body struct {
		Model             string            `json:"model"`
		SystemInstruction json.RawMessage   `json:"systemInstruction"`
		Contents          []json.RawMessage `json:"contents"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Description          string          `json:"description"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if json.Unmarshal(req.Body, &body) != nil {
		return Request{}, false
	}
	r := Request{Model: body.Model}
	if si := bytes.TrimSpace(body.SystemInstruction); len(si) > 0 && !bytes.Equal(si, []byte("null")) {
		var text string
		if json.Unmarshal(si, &text) == nil {
			r.System = &Content{Parts: []Part{{Text: text}}} // a bare string, as some clients send
		} else if c, ok := geminiContent(si); ok {
			r.System = &c
		}
	}
	for _, raw := range body.Contents {
		if c, ok := geminiContent(raw); ok {
			r.Contents = append(r.Contents, c)
		}
	}
	for _, t := range body.Tools {
		for _, d := range t.FunctionDeclarations {
			params := d.Parameters
			if len(params) == 0 {
				params = d.ParametersJSONSchema
			}
			r.Tools = append(r.Tools, Declaration{Name: d.Name, Description: d.Description, Parameters: bytes.Clone(params)})
		}
	}
	return r, true
}

// geminiContent reads one content: its role and parts.
func geminiContent(raw []byte) (Content, bool) {
	var c struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return Content{}, false
	}
	out := Content{Role: c.Role}
	for _, raw := range c.Parts {
		var p struct {
			Text             *string                 `json:"text"`
			Thought          bool                    `json:"thought"`
			FunctionCall     *geminiFunctionCall     `json:"functionCall"`
			FunctionResponse *geminiFunctionResponse `json:"functionResponse"`
		}
		if json.Unmarshal(raw, &p) != nil {
			out.Parts = append(out.Parts, Part{Other: bytes.Clone(raw)})
			continue
		}
		switch {
		case p.FunctionCall != nil:
			out.Parts = append(out.Parts, Part{FunctionCall: &ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args}})
		case p.FunctionResponse != nil:
			out.Parts = append(out.Parts, Part{FunctionResponse: &ToolResult{ID: p.FunctionResponse.ID, Name: p.FunctionResponse.Name, Response: p.FunctionResponse.Response}})
		case p.Text != nil:
			out.Parts = append(out.Parts, Part{Text: *p.Text, Thought: p.Thought})
		default:
			out.Parts = append(out.Parts, Part{Other: bytes.Clone(raw)})
		}
	}
	return out, true
}

func (gemini) Tool(*cassettes.Exchange) (ToolExchange, bool) { return ToolExchange{}, false }

func (gemini) Matching() *Matching { return &geminiMatching }

// geminiMatching: ADK's client-made call ids ("adk-<uuid>") change every
// run; ids the server made are echoed from replayed responses, so
// ignoring them loses nothing. Declarations are named by their name and
// parts by the function they call or answer.
var geminiMatching = Matching{
	Volatile: []string{
		"contents[*].parts[*].functionCall.id",
		"contents[*].parts[*].functionResponse.id",
	},
	ElementName: geminiElementName,
	Array:       geminiArray,
	Members: []string{"contents", "systemInstruction", "tools", "toolConfig", "generationConfig",
		"safetySettings", "labels", "cachedContent"},
	Group: func(field string) string {
		switch field {
		case "systemInstruction":
			return "system_instruction"
		case "tools":
			return "tools"
		case "generationConfig":
			return "generation_config"
		case "contents":
			return "contents"
		}
		return ""
	},
	// genai's []byte fields, by the keys the Gemini API reads them at: a
	// part's signature, a blob's data (a part's, a function response
	// part's, a Live message's media), an image's or a video's bytes, a
	// replicated voice's audio, a continuation token and a Live avatar's image.
	Bytes: []BytesField{
		{Key: "thoughtSignature"},
		{In: "inlineData", Key: "data"},
		{In: "mediaChunks", Key: "data"}, {In: "audio", Key: "data"}, {In: "video", Key: "data"}, {In: "media", Key: "data"},
		{Key: "bytesBase64Encoded"}, {Key: "encodedVideo"},
		{Key: "voiceSampleAudio"}, {Key: "consentAudio"},
		{Key: "continuationToken"}, {Key: "imageData"},
	},
}

// geminiArray: the history is a sequence of turns, the same only when
// equal, an edited turn diffed field by field; a tool's declarations are
// a sequence told apart by name; a turn's parts keep their positions,
// addressed by the function they call or answer.
func geminiArray(path string, _, _ []any) Array {
	switch {
	case path == "contents":
		return Array{Aligned: true, Paired: true}
	case isIndexed(path, "tools[", "].functionDeclarations"):
		return Array{Aligned: true, Key: declarationName}
	case isIndexed(path, "contents[", "].parts"):
		return Array{Labelled: true}
	}
	return Array{}
}

// declarationName is a declaration's "name", when it is a string.
func declarationName(v any) (string, bool) {
	m, _ := v.(map[string]any)
	name, ok := m["name"].(string)
	return name, ok
}

// isIndexed reports whether path is prefix N suffix, N a number.
func isIndexed(path, prefix, suffix string) bool {
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return false
	}
	n, ok := strings.CutSuffix(rest, suffix)
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// geminiElementName is a function declaration's name, else the name of
// the function a part calls or answers, else "".
func geminiElementName(v any) string {
	m, _ := v.(map[string]any)
	if name, ok := m["name"].(string); ok {
		return name
	}
	for _, field := range [...]string{"functionCall", "functionResponse"} {
		if f, ok := m[field].(map[string]any); ok {
			name, _ := f["name"].(string)
			return name
		}
	}
	return ""
}

// The shapes of genai's types that a step reads, field for field where a
// value of the wrong type makes encoding/json refuse the document, so a
// response genai would not read yields nothing here either.
type (
	geminiResponse struct {
		Candidates []*struct {
			Content *struct {
				Parts []*struct {
					Text         string              `json:"text"`
					Thought      bool                `json:"thought"`
					FunctionCall *geminiFunctionCall `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		UsageMetadata *geminiUsage `json:"usageMetadata"`
		ModelVersion  string       `json:"modelVersion"`
	}
	geminiFunctionCall struct {
		ID          string         `json:"id"`
		Args        map[string]any `json:"args"`
		Name        string         `json:"name"`
		PartialArgs []*struct {
			BoolValue    *bool    `json:"boolValue"`
			JSONPath     string   `json:"jsonPath"`
			NullValue    string   `json:"nullValue"`
			NumberValue  *float64 `json:"numberValue"`
			StringValue  string   `json:"stringValue"`
			WillContinue *bool    `json:"willContinue"`
		} `json:"partialArgs"`
		WillContinue *bool `json:"willContinue"`
	}
	geminiFunctionResponse struct {
		WillContinue *bool  `json:"willContinue"`
		Scheduling   string `json:"scheduling"`
		Parts        []*struct {
			InlineData *struct {
				MIMEType    string `json:"mimeType"`
				Data        []byte `json:"data"`
				DisplayName string `json:"displayName"`
			} `json:"inlineData"`
			FileData *struct {
				FileURI     string `json:"fileUri"`
				MIMEType    string `json:"mimeType"`
				DisplayName string `json:"displayName"`
			} `json:"fileData"`
			MediaProcessing string `json:"mediaProcessing"`
		} `json:"parts"`
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	}
	geminiUsage struct {
		CacheTokensDetails         []*modalityTokens `json:"cacheTokensDetails"`
		CachedContentTokenCount    int32             `json:"cachedContentTokenCount"`
		CandidatesTokenCount       int32             `json:"candidatesTokenCount"`
		CandidatesTokensDetails    []*modalityTokens `json:"candidatesTokensDetails"`
		PromptTokenCount           int32             `json:"promptTokenCount"`
		PromptTokensDetails        []*modalityTokens `json:"promptTokensDetails"`
		ThoughtsTokenCount         int32             `json:"thoughtsTokenCount"`
		ToolUsePromptTokenCount    int32             `json:"toolUsePromptTokenCount"`
		ToolUsePromptTokensDetails []*modalityTokens `json:"toolUsePromptTokensDetails"`
		TotalTokenCount            int32             `json:"totalTokenCount"`
		TrafficType                string            `json:"trafficType"`
	}
	modalityTokens struct {
		Modality   string `json:"modality"`
		TokenCount int32  `json:"tokenCount"`
	}
)

func (u *geminiUsage) usage() *Usage {
	return &Usage{Prompt: u.PromptTokenCount, Candidates: u.CandidatesTokenCount, Total: u.TotalTokenCount,
		Thoughts: u.ThoughtsTokenCount, Cached: u.CachedContentTokenCount, ToolUse: u.ToolUsePromptTokenCount}
}
