// The fake's HTTP API: model calls placed in their session and invocation
// and answered with the turn's next item; countTokens and the model list.

package fake

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// HeaderInvocation names a call's invocation, as adkproxy's own header
// does for clients that cannot be placed by their history.
const HeaderInvocation = "X-Adkproxy-Invocation"

// Server answers from a script. It is an http.Handler; Live connections
// are upgraded on their path (live.go).
type Server struct {
	script *Script
	m      *matcher.Matcher
	org    *conversation.Organizer

	mu      sync.Mutex
	next    map[[2]int]int // (session, invocation) -> items taken
	liveIDs int            // Live connections so far: sessions of their own
}

// New serves script.
func New(script *Script) *Server {
	return &Server{script: script, m: matcher.Default(), org: conversation.NewOrganizer(), next: map[[2]int]int{}}
}

var methodPath = regexp.MustCompile(`^/v1[a-z0-9]*/(?:projects/[^/]+/locations/[^/]+/)?(?:publishers/google/)?models(?:/([^/:]+))?(?::([A-Za-z]+))?$`)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if IsLive(r) {
		s.serveLive(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err != nil {
		fault.WriteError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "adkproxy fake: could not read the request body: "+err.Error(), 0)
		return
	}
	if s.serveChat(w, r, body) { // chat.go: the OpenAI-compatible endpoint
		return
	}
	m := methodPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		notServed(w, r)
		return
	}
	model, method := m[1], m[2]
	switch {
	case r.Method == http.MethodGet && model == "":
		writeJSON(w, map[string]any{"models": []any{modelInfo("gemini-2.5-flash")}})
	case r.Method == http.MethodGet && method == "":
		writeJSON(w, modelInfo(model))
	case r.Method == http.MethodPost && method == "countTokens":
		// countTokens is sent the contents generateContent would be.
		writeJSON(w, map[string]any{"totalTokens": tokens("/v1beta/models/"+model+":generateContent", body)})
	case r.Method == http.MethodPost && (method == "generateContent" || method == "streamGenerateContent"):
		s.generate(w, r, model, body)
	default:
		notServed(w, r)
	}
}

// notServed answers a path the fake does not serve, naming what is
// missing when the path lacks only its version segment: a base URL given
// to an SDK in code that does not end as the SDK expects.
func notServed(w http.ResponseWriter, r *http.Request) {
	msg := fmt.Sprintf("adkproxy fake: %s %s is not a method the fake serves (generateContent, streamGenerateContent, countTokens, models, Live)", r.Method, r.URL.Path)
	if want := withVersion(r.URL.Path); want != "" {
		msg = fmt.Sprintf("adkproxy fake: %s %s has no API version segment: the fake serves %s. The client's base URL lacks it "+
			"(the Vercel AI SDK's baseURL must end in /v1beta; openai's baseURL in /v1beta/openai/)", r.Method, r.URL.Path, want)
	}
	fault.WriteError(w, http.StatusNotFound, "NOT_FOUND", msg, 0)
}

// withVersion is path with the /v1beta segment it lacks, or "" when it
// lacks something else.
func withVersion(path string) string {
	if strings.HasPrefix(path, "/v1") {
		return ""
	}
	if methodPath.MatchString("/v1beta" + path) {
		return "/v1beta" + path
	}
	for _, lacking := range []string{"/openai/", "/"} { // openai's baseURL without /v1beta, or without /v1beta/openai
		if rest, ok := strings.CutPrefix(path, lacking); ok && (rest == "chat/completions" || rest == "models" || rest == "embeddings") {
			return "/v1beta/openai/" + rest
		}
	}
	return ""
}

// generate answers a model call with its turn's next item.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, model string, body []byte) {
	call, ok := conversation.Analyze(s.m, r.URL.Path, body)
	if !ok {
		fault.WriteError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "adkproxy fake: the request body is not a JSON object", 0)
		return
	}
	place, token := s.org.Place(call, strings.TrimSpace(r.Header.Get(HeaderInvocation)))
	item, at, err := s.take(place.Session, place.Invocation, call.UserText)
	status := http.StatusOK
	defer func() { s.org.Finish(token, &cassettes.Response{Status: status}) }()
	if err != nil {
		status = http.StatusBadRequest
		fault.WriteError(w, status, "FAILED_PRECONDITION", "adkproxy fake: "+err.Error(), 0)
		return
	}
	id := responseID(place.Session, place.Invocation, at)
	switch {
	case item.Error != nil:
		status = item.Error.Code
		fault.WriteError(w, status, item.Error.Status, item.Error.Message, 1)
	case item.Fault != nil:
		status = 0 // until it returns: a reset ends the handler by panicking, a failed step all the same
		status = s.serveFault(w, r, item.Fault, place, model, tokens(r.URL.Path, body), id)
	default:
		cs := s.script.Answers.apply(chunks(fault.Streaming(r), item.Parts, model, tokens(r.URL.Path, body), id))
		for _, c := range cs {
			s.org.Calls(token, conversation.ResponseCalls(c))
		}
		fault.WriteAnswer(w, r, cs)
	}
}

// serveFault answers with a scripted fault. Reset after events and
// truncated-json cut the turn's next answer, a delay holds it back; the
// next item is taken only by a delay that the client waited out.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, what *fault.What, place cassettes.Place, model string, prompt int, id string) int {
	next, ok := s.peek(place.Session, place.Invocation)
	var answer *cassettes.Response
	if ok && next.Parts != nil {
		answer = response(fault.Streaming(r), chunks(fault.Streaming(r), next.Parts, model, prompt, id))
	}
	switch what.Kind {
	case fault.Delay:
		select {
		case <-r.Context().Done():
			return 499
		case <-time.After(what.Duration):
		}
		if !ok || next.Parts == nil {
			fault.WriteError(w, http.StatusBadRequest, "FAILED_PRECONDITION", "adkproxy fake: a delay item must be followed by an answer in its turn", 0)
			return http.StatusBadRequest
		}
		s.take(place.Session, place.Invocation, "")
		fault.WriteAnswer(w, r, chunks(fault.Streaming(r), next.Parts, model, prompt, id))
		return http.StatusOK
	case fault.Status:
		fault.Write(w, r, *what, answer)
		return what.Code
	case fault.Safety, fault.MalformedCall, fault.Empty:
		fault.Write(w, r, *what, answer)
		return http.StatusOK
	}
	fault.Write(w, r, *what, answer) // reset panics; truncated-json answers
	return http.StatusOK
}

// take hands out the next item of the session's invocation, checking the
// user text its turn expects; at is the item's index.
func (s *Server) take(session, invocation int, user string) (Item, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	turns := s.script.Turns
	if invocation > len(turns) {
		return Item{}, 0, fmt.Errorf("the script %s has %d turn(s); %s's model call is in turn %d (user: %q): add a turn to the script",
			s.script.Name, len(turns), sessionName(session), invocation, user)
	}
	turn := turns[invocation-1]
	key := [2]int{session, invocation}
	at := s.next[key]
	if at == 0 && turn.User != nil && user != "" && strings.TrimSpace(*turn.User) != strings.TrimSpace(user) {
		return Item{}, 0, fmt.Errorf("%s:%d: turn %d expects the user to say %q; %s's call says %q",
			s.script.Name, turn.Line, invocation, *turn.User, sessionName(session), user)
	}
	if at >= len(turn.Model) {
		return Item{}, 0, fmt.Errorf("%s:%d: turn %d (user: %q) has %d model item(s); %s made model call %d of that turn: add an item to turns[%d].model",
			s.script.Name, turn.Line, invocation, user, len(turn.Model), sessionName(session), at+1, invocation-1)
	}
	s.next[key] = at + 1
	return turn.Model[at], at, nil
}

// liveSessions numbers Live connections apart from the sessions the
// organizer places HTTP calls in.
const liveSessions = 1_000_000

// sessionName names a session in messages.
func sessionName(session int) string {
	if session > liveSessions {
		return fmt.Sprintf("Live connection %d", session-liveSessions)
	}
	return fmt.Sprintf("session %d", session)
}

// peek is the item take would hand out next, without taking it.
func (s *Server) peek(session, invocation int) (Item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if invocation > len(s.script.Turns) {
		return Item{}, false
	}
	model := s.script.Turns[invocation-1].Model
	at := s.next[[2]int{session, invocation}]
	if at >= len(model) {
		return Item{}, false
	}
	return model[at], true
}

// chunks are an answer's JSON bodies: for a stream one per part, the
// last with the finish reason; else one body with every part. Usage is
// counted in words: the prompt's, and the answer's so far.
func chunks(stream bool, parts []Part, model string, prompt int, id string) [][]byte {
	if !stream {
		used := 0
		whole := make([]any, len(parts))
		for i, p := range parts {
			whole[i] = wirePart(p)
			used += partTokens(p)
		}
		return [][]byte{candidate(whole, true, model, prompt, used, id)}
	}
	var out [][]byte
	used := 0
	for i, p := range parts {
		used += partTokens(p)
		out = append(out, candidate([]any{wirePart(p)}, i == len(parts)-1, model, prompt, used, id))
	}
	return out
}

func candidate(parts []any, last bool, model string, prompt, used int, id string) []byte {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if last {
		cand["finishReason"] = "STOP"
	}
	return marshal(map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": id, "usageMetadata": usage(prompt, used)})
}

func partTokens(p Part) int { return len(strings.Fields(p.Text)) + btoi(p.Call != "") }

// response is chunks as the recording of an answer, for faults that cut
// one: the stream's events, or the whole body.
func response(stream bool, cs [][]byte) *cassettes.Response {
	if !stream {
		return &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}}, Body: cs[0]}
	}
	resp := &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}}
	for _, c := range cs {
		resp.Events = append(resp.Events, cassettes.Event{Data: fault.Event(c)})
	}
	return resp
}

func wirePart(p Part) map[string]any {
	if p.Call != "" {
		return map[string]any{"functionCall": map[string]any{"name": p.Call, "args": p.Args}}
	}
	return map[string]any{"text": p.Text}
}

func usage(prompt, candidates int) map[string]any {
	return map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": candidates, "totalTokenCount": prompt + candidates}
}

// tokens counts the words of a model call's texts (its history, read
// through wire in whichever dialect path has), a stand-in for tokens, so
// one script gives every endpoint the same usage.
func tokens(path string, body []byte) int {
	r, _ := wire.RequestOf(&cassettes.Request{Method: http.MethodPost, Path: path, Body: body})
	n := 0
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			n += len(strings.Fields(p.Text))
		}
	}
	return n
}

// responseID is fixed by the call's place, so two runs of one script
// answer with the same bytes.
func responseID(session, invocation, item int) string {
	sum := sha256.Sum256([]byte(strconv.Itoa(session) + "/" + strconv.Itoa(invocation) + "/" + strconv.Itoa(item)))
	return hex.EncodeToString(sum[:8])
}

func modelInfo(name string) map[string]any {
	return map[string]any{"name": "models/" + name, "displayName": name, "inputTokenLimit": 1048576,
		"supportedGenerationMethods": []string{"generateContent", "countTokens", "bidiGenerateContent"}}
}

func marshal(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// writeJSON answers as the Gemini API does: pretty-printed JSON ending in
// a newline.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(marshal(v))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
