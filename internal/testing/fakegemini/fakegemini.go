// Package fakegemini is a scripted stand-in for the Gemini API, for tests
// and for recording the demo cassettes without a key. Its answers are pure
// functions of the request, so two runs over the same traffic produce the
// same bytes. It speaks the wire format the SDKs expect: pretty-printed JSON
// bodies, SSE streams framed as "data: ...\r\n\r\n", Gemini error bodies.
//
// The model is a tiny weather agent: with a function tool declared and a
// user question, it calls the first tool with {"city": <last word>}; once
// the call's result is in the history it answers with a sentence about it;
// otherwise it echoes the user's text.
//
// It also plays the agents of an ADK agent tree, which it recognises by the
// system instruction ADK writes ("Your internal name is ...", one "Agent
// name: ..." line per agent it may transfer to) and the transfer_to_agent
// function ADK declares:
//   - an agent whose own name the newest user text mentions answers that
//     text ("<name> here. You asked: <text>"): it is the one transferred to;
//   - an agent that may transfer, asked by the user (the last content) with a
//     text naming one of its transfer targets, calls transfer_to_agent with
//     that name, under the argument name the declaration gives;
//   - transfer_to_agent is never the tool chosen for a question: the first
//     other declared tool is, so the order in which ADK declares it does not
//     matter.
package fakegemini

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
)

// Handler serves the fake API. The zero value is ready to use.
type Handler struct {
	// BeforeEvent, when set, is called before SSE event i (from 0) is
	// written; a test can block in it to hold the stream in lockstep.
	BeforeEvent func(i int)
	// ResourceOptions shape files, uploads, caches, batches and
	// interactions (resources.go).
	ResourceOptions ResourceOptions

	res        resources
	mu         sync.Mutex
	requests   []Request
	liveFrames []string // client frames of Live sessions (live.go)
}

// Request is what the fake upstream received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Requests returns every request received so far.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.requests...)
}

var modelPath = regexp.MustCompile(`^/v1[a-z0-9]*/(?:projects/[^/]+/locations/[^/]+/)?(?:publishers/google/)?models(?:/([^/:]+))?(?::([A-Za-z]+))?$`)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.requests = append(h.requests, Request{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
	h.mu.Unlock()
	if fake.IsLive(r) {
		h.serveLive(w, r)
		return
	}
	if h.serveResource(w, r, body) {
		return
	}

	m := modelPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: no such method: "+r.URL.Path)
		return
	}
	model, method := m[1], m[2]
	var req generateRequest
	if r.Method == http.MethodPost && json.Unmarshal(body, &req) != nil {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fakegemini: request body is not JSON")
		return
	}
	if r.Method == http.MethodPost {
		req.agent = readAgent(body)
	}
	switch {
	case r.Method == http.MethodGet && model == "":
		writeJSON(w, map[string]any{"models": []any{modelInfo("gemini-2.5-flash"), modelInfo("gemini-embedding-001")}})
	case r.Method == http.MethodGet:
		writeJSON(w, modelInfo(model))
	case method == "generateContent":
		writeJSON(w, answer(model, &req, req.reply(), true))
	case method == "streamGenerateContent":
		h.stream(w, model, &req)
	case method == "countTokens":
		writeJSON(w, map[string]any{"totalTokens": len(strings.Fields(req.allText()))})
	case method == "embedContent":
		writeJSON(w, map[string]any{"embedding": map[string]any{"values": embed(req.Content.text())}})
	case method == "batchEmbedContents":
		var out []any
		for _, e := range req.Requests {
			out = append(out, map[string]any{"values": embed(e.Content.text())})
		}
		writeJSON(w, map[string]any{"embeddings": out})
	case method == "predict": // Vertex AI embeddings
		var out []any
		for _, in := range req.Instances {
			out = append(out, map[string]any{"embeddings": map[string]any{"values": embed(in.Content)}})
		}
		writeJSON(w, map[string]any{"predictions": out})
	default:
		writeError(w, http.StatusNotFound, "NOT_FOUND", "fakegemini: unsupported method "+method)
	}
}

// stream sends the reply's text in three events, the last with the finish
// reason and usage, as Gemini does.
func (h *Handler) stream(w http.ResponseWriter, model string, req *generateRequest) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Content-Disposition", "attachment")
	w.WriteHeader(http.StatusOK)
	reply := req.reply()
	var chunks []part
	if reply.FunctionCall != nil {
		chunks = []part{reply}
	} else {
		words := strings.SplitAfter(reply.Text, " ")
		third := (len(words) + 2) / 3
		for i := 0; i < len(words); i += third {
			chunks = append(chunks, part{Text: strings.Join(words[i:min(i+third, len(words))], "")})
		}
	}
	for i, c := range chunks {
		if h.BeforeEvent != nil {
			h.BeforeEvent(i)
		}
		data, _ := json.Marshal(answer(model, req, c, i == len(chunks)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		w.(http.Flusher).Flush()
	}
}

type generateRequest struct {
	Contents  []content   `json:"contents"`
	Content   content     `json:"content"`
	Tools     []tool      `json:"tools"`
	Requests  []embedding `json:"requests"`
	Instances []struct {
		Content string `json:"content"`
	} `json:"instances"`

	// agent is what the request says about the ADK agent sending it. It is
	// unexported so that responseID, a hash of the fields above, stays what
	// it was before agents were recognised.
	agent adkAgent
}

// adkAgent is an ADK agent as its model requests describe it.
type adkAgent struct {
	name    string   // "Your internal name is" in the system instruction
	targets []string // "Agent name:" lines: the agents it may transfer to
	// transferArg is the parameter of the declared transfer_to_agent
	// (agent_name in ADK Python, agentName in ADK JS), or "" when the
	// request declares no transfer_to_agent.
	transferArg string
}

// transferTool is the function ADK declares for transfers between agents.
const transferTool = "transfer_to_agent"

var (
	internalName = regexp.MustCompile(`[Yy]our internal name is "?([A-Za-z0-9_.-]+)`)
	targetName   = regexp.MustCompile(`(?m)^Agent name: *([A-Za-z0-9_.-]+)`)
)

// readAgent reads the system instruction and the transfer_to_agent
// declaration of a request body.
func readAgent(body []byte) adkAgent {
	var req struct {
		SystemInstruction json.RawMessage `json:"systemInstruction"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name                 string `json:"name"`
				Parameters           schema `json:"parameters"`
				ParametersJSONSchema schema `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	var a adkAgent
	if json.Unmarshal(body, &req) != nil {
		return a
	}
	var instruction string
	var si content
	if json.Unmarshal(req.SystemInstruction, &instruction) != nil && json.Unmarshal(req.SystemInstruction, &si) == nil {
		instruction = si.text()
	}
	if m := internalName.FindStringSubmatch(instruction); m != nil {
		a.name = m[1]
	}
	for _, m := range targetName.FindAllStringSubmatch(instruction, -1) {
		a.targets = append(a.targets, m[1])
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			if d.Name != transferTool {
				continue
			}
			a.transferArg = "agent_name"
			for _, props := range []map[string]json.RawMessage{d.Parameters.Properties, d.ParametersJSONSchema.Properties} {
				if len(props) == 1 {
					for name := range props {
						a.transferArg = name
					}
				}
			}
		}
	}
	return a
}

type schema struct {
	Properties map[string]json.RawMessage `json:"properties"`
}

// agentReply is the reply of an ADK agent when the newest user text is
// about an agent by name: the agent named answers it, an agent that can
// transfer to the one named does so. ok is false otherwise.
func (r *generateRequest) agentReply() (p part, ok bool) {
	a := r.agent
	if a.name == "" {
		return part{}, false
	}
	turn := -1
	for i, c := range r.Contents {
		if c.isUserText() {
			turn = i
		}
	}
	if turn < 0 {
		return part{}, false
	}
	question := strings.TrimSpace(r.Contents[turn].text())
	if mentions(question, a.name) {
		return part{Text: fmt.Sprintf("%s here. You asked: %s", a.name, question)}, true
	}
	if a.transferArg == "" || turn != len(r.Contents)-1 {
		return part{}, false
	}
	for _, target := range a.targets {
		if target != a.name && mentions(question, target) {
			return part{FunctionCall: &functionCall{Name: transferTool, Args: map[string]any{a.transferArg: target}}}, true
		}
	}
	return part{}, false
}

// isUserText reports whether c is something the user said: user-role text,
// not a tool result and not ADK's relay of another agent's turn ("For
// context: ...").
func (c content) isUserText() bool {
	if c.Role != "" && c.Role != "user" {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionCall != nil || p.FunctionResponse != nil {
			return false
		}
	}
	text := strings.TrimSpace(c.text())
	return text != "" && !strings.HasPrefix(text, "For context:")
}

// mentions reports whether text names an agent as a whole word.
func mentions(text, name string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) {
		if strings.Trim(w, ".-") == name {
			return true
		}
	}
	return false
}

type embedding struct {
	Content content `json:"content"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             string            `json:"text,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type functionCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type functionResponse struct {
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type tool struct {
	FunctionDeclarations []struct {
		Name string `json:"name"`
	} `json:"functionDeclarations"`
}

func (c content) text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (r *generateRequest) allText() string {
	var b strings.Builder
	for _, c := range r.Contents {
		b.WriteString(c.text() + " ")
	}
	return b.String()
}

// reply decides the model's next part from the conversation so far.
func (r *generateRequest) reply() part {
	if len(r.Contents) == 0 {
		return part{Text: "Hello."}
	}
	if p, ok := r.agentReply(); ok {
		return p
	}
	last := r.Contents[len(r.Contents)-1]
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			return part{Text: summarize(p.FunctionResponse)}
		}
	}
	question := strings.TrimSpace(last.text())
	if tool := r.firstTool(); tool != "" && question != "" {
		words := strings.Fields(strings.Trim(question, "?!. "))
		return part{FunctionCall: &functionCall{Name: tool, Args: map[string]any{"city": words[len(words)-1]}}}
	}
	return part{Text: "You said: " + question}
}

// summarize words a tool result the way a model would.
func summarize(fr *functionResponse) string {
	r := fr.Response
	if city, ok := r["city"].(string); ok {
		if temp, ok := r["temp_c"].(float64); ok {
			sky, _ := r["sky"].(string)
			return strings.TrimSuffix(fmt.Sprintf("It is %g°C in %s, %s", temp, city, sky), ", ") + "."
		}
	}
	result, _ := json.Marshal(r)
	return fmt.Sprintf("%s returned %s.", fr.Name, result)
}

// firstTool is the first declared function other than ADK's
// transfer_to_agent, which only agentReply calls.
func (r *generateRequest) firstTool() string {
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			if d.Name != transferTool {
				return d.Name
			}
		}
	}
	return ""
}

func answer(model string, req *generateRequest, p part, last bool) map[string]any {
	if model == "" {
		model = "gemini-2.5-flash"
	}
	prompt := len(strings.Fields(req.allText()))
	out := len(strings.Fields(p.Text)) + 1
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": []part{p}}, "index": 0}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": responseID(req)}
	if last {
		cand["finishReason"] = "STOP"
		resp["usageMetadata"] = map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
	}
	return resp
}

func responseID(req *generateRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// embed derives a small deterministic vector from text.
func embed(text string) []float64 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float64, 4)
	for i := range v {
		v[i] = float64(binary.BigEndian.Uint16(sum[2*i:])) / 65536
	}
	return v
}

func modelInfo(name string) map[string]any {
	return map[string]any{"name": "models/" + name, "displayName": name, "inputTokenLimit": 1048576,
		"supportedGenerationMethods": []string{"generateContent", "countTokens"}}
}

// writeJSON answers the way the Gemini API does: pretty-printed JSON that
// ends in a newline.
func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, status, msg string) {
	b, _ := json.MarshalIndent(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}, "", "  ")
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
