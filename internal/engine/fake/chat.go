// The script answered on Gemini's OpenAI-compatible endpoint: the same
// turns, placed the same way, spelt as chat completions (JSON, or SSE
// chunks ending in [DONE]) and the model list.

package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// serveChat answers a request under the compatibility layer's root; ok is
// false when path is not under it.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, body []byte) (ok bool) {
	rest, _, ok := wire.OpenAIRest(r.URL.Path)
	if !ok {
		return false
	}
	switch {
	case rest == "chat/completions" && r.Method == http.MethodPost:
		s.chat(w, r, body)
	case rest == "models" && r.Method == http.MethodGet:
		writeJSON(w, map[string]any{"object": "list", "data": []any{chatModel("gemini-2.5-flash")}})
	case strings.HasPrefix(rest, "models/") && r.Method == http.MethodGet:
		writeJSON(w, chatModel(strings.TrimPrefix(strings.TrimPrefix(rest, "models/"), "models/")))
	default:
		fault.WriteError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("adkproxy fake: %s %s is not served on the OpenAI-compatible endpoint (chat/completions, models)", r.Method, r.URL.Path), 0)
	}
	return true
}

func chatModel(name string) map[string]any {
	return map[string]any{"id": "models/" + name, "object": "model", "owned_by": "google"}
}

// chatRequest is what answering needs of a chat completion request.
type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// chat answers a chat completion with its turn's next item, placed as
// generateContent's call would be (conversation reads it through wire).
// The fake's own errors (no such turn) keep adkproxy's error shape, which
// clients show the message of; a scripted error or fault is Gemini's
// compatibility layer's (fault.WriteChat).
func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req chatRequest
	call, ok := conversation.Analyze(s.m, r.URL.Path, body)
	if !ok || json.Unmarshal(body, &req) != nil {
		fault.WriteError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "adkproxy fake: the request body is not a chat completion request", 0)
		return
	}
	place, token := s.org.Place(call, strings.TrimSpace(r.Header.Get(HeaderInvocation)))
	item, at, err := s.take(place.Session, place.Invocation, call.UserText)
	status := http.StatusOK
	defer func() { s.org.Finish(token, &cassettes.Response{Status: status}) }()
	a := chatAnswer{req: req, prompt: tokens(r.URL.Path, body), id: responseID(place.Session, place.Invocation, at)}
	switch {
	case err != nil:
		status = http.StatusBadRequest
		fault.WriteError(w, status, "FAILED_PRECONDITION", "adkproxy fake: "+err.Error(), 0)
	case item.Error != nil:
		status = item.Error.Code
		fault.WriteChatError(w, status, item.Error.Status, item.Error.Message, 1)
	case item.Fault != nil:
		status = 0 // until it returns: a reset ends the handler by panicking, a failed step all the same
		status = s.serveChatFault(w, r, item.Fault, place, a)
	default:
		cs := a.chunks(item.Parts)
		for _, c := range cs {
			s.org.Calls(token, conversation.ResponseCalls(c))
		}
		fault.WriteChatAnswer(w, req.Stream, cs)
	}
}

// chatAnswer is what an answer to one chat completion request is made of.
type chatAnswer struct {
	req    chatRequest
	prompt int
	id     string
}

// chunks are the answer of parts: one whole completion, or a stream's
// chunks before [DONE].
func (a chatAnswer) chunks(parts []Part) [][]byte {
	if !a.req.Stream {
		return [][]byte{chatCompletion(parts, a.req.Model, a.prompt, a.id)}
	}
	usage := a.req.StreamOptions != nil && a.req.StreamOptions.IncludeUsage
	return chatChunks(parts, a.req.Model, a.prompt, a.id, usage)
}

// response is the answer of parts as a recording, for faults that cut it.
func (a chatAnswer) response(parts []Part) *cassettes.Response {
	cs := a.chunks(parts)
	if !a.req.Stream {
		return &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: cs[0]}
	}
	resp := &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}}
	for _, c := range append(cs, []byte("[DONE]")) {
		resp.Events = append(resp.Events, cassettes.Event{Data: fmt.Appendf(nil, "data: %s\n\n", c)})
	}
	return resp
}

// serveChatFault is serveFault on the OpenAI-compatible endpoint: a delay
// holds the turn's next answer back and then gives it; reset after events
// and truncated-json cut it; the others answer in place of it.
func (s *Server) serveChatFault(w http.ResponseWriter, r *http.Request, what *fault.What, place cassettes.Place, a chatAnswer) int {
	next, ok := s.peek(place.Session, place.Invocation)
	var answer *cassettes.Response
	if ok && next.Parts != nil {
		answer = a.response(next.Parts)
	}
	switch what.Kind {
	case fault.Delay:
		select {
		case <-r.Context().Done():
			return 499
		case <-time.After(what.Duration):
		}
		if answer == nil {
			fault.WriteError(w, http.StatusBadRequest, "FAILED_PRECONDITION", "adkproxy fake: a delay item must be followed by an answer in its turn", 0)
			return http.StatusBadRequest
		}
		s.take(place.Session, place.Invocation, "")
		fault.WriteChatAnswer(w, a.req.Stream, a.chunks(next.Parts))
		return http.StatusOK
	case fault.Status:
		fault.WriteChat(w, *what, answer, a.req.Stream, a.req.Model)
		return what.Code
	}
	fault.WriteChat(w, *what, answer, a.req.Stream, a.req.Model) // reset panics
	return http.StatusOK
}

func chatToolCall(p Part, id string, k int) map[string]any {
	args, _ := json.Marshal(p.Args)
	if p.Args == nil {
		args = []byte("{}")
	}
	return map[string]any{"id": "call_" + id + "_" + strconv.Itoa(k), "type": "function",
		"function": map[string]any{"name": p.Call, "arguments": string(args)}}
}

func chatUsage(prompt, completion int) map[string]any {
	return map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
}

func chatFinish(parts []Part) string {
	for _, p := range parts {
		if p.Call != "" {
			return "tool_calls"
		}
	}
	return "stop"
}

// chatCompletion is a whole answer: the text parts joined, a tool call
// per call part.
func chatCompletion(parts []Part, model string, prompt int, id string) []byte {
	var text []string
	var calls []any
	used := 0
	for _, p := range parts {
		used += partTokens(p)
		if p.Call != "" {
			calls = append(calls, chatToolCall(p, id, len(calls)))
		} else {
			text = append(text, p.Text)
		}
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if len(text) > 0 {
		msg["content"] = strings.Join(text, "")
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	return marshal(map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": 0, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": chatFinish(parts)}},
		"usage":   chatUsage(prompt, used)})
}

// chatChunks are a streamed answer's chunks: one per part (a tool call
// with its index among the calls), the last with the finish reason, then
// the usage when asked for; [DONE] follows them on the wire.
func chatChunks(parts []Part, model string, prompt int, id string, usage bool) [][]byte {
	chunk := func(delta map[string]any, finish any) []byte {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return b
	}
	var out [][]byte
	used, calls := 0, 0
	for i, p := range parts {
		used += partTokens(p)
		delta := map[string]any{}
		if i == 0 {
			delta["role"] = "assistant"
		}
		if p.Call != "" {
			tc := chatToolCall(p, id, calls)
			tc["index"] = calls
			calls++
			delta["tool_calls"] = []any{tc}
		} else {
			delta["content"] = p.Text
		}
		var finish any
		if i == len(parts)-1 {
			finish = chatFinish(parts)
		}
		out = append(out, chunk(delta, finish))
	}
	if usage {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{}, "usage": chatUsage(prompt, used)})
		out = append(out, b)
	}
	return out
}
