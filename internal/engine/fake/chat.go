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
	switch {
	case err != nil:
		status = http.StatusBadRequest
		fault.WriteError(w, status, "FAILED_PRECONDITION", "adkproxy fake: "+err.Error(), 0)
	case item.Error != nil:
		status = item.Error.Code
		fault.WriteError(w, status, item.Error.Status, item.Error.Message, 1)
	case item.Fault != nil && item.Fault.Kind == fault.Status:
		status = item.Fault.Code
		fault.WriteError(w, status, fault.StatusName(status), "adkproxy fake: a scripted fault", 1)
	case item.Fault != nil:
		status = http.StatusBadRequest
		fault.WriteError(w, status, "FAILED_PRECONDITION", fmt.Sprintf("adkproxy fake: the fault %s of turn %d is not served on the OpenAI-compatible endpoint (only a status: 429, 500, 503)", item.Fault.Kind, place.Invocation), 0)
	default:
		id := responseID(place.Session, place.Invocation, at)
		prompt := chatTokens(r.URL.Path, body)
		if req.Stream {
			writeChatStream(w, chatChunks(item.Parts, req.Model, prompt, id, req.StreamOptions != nil && req.StreamOptions.IncludeUsage))
		} else {
			w.Header().Set("Content-Type", "application/json")
			w.Write(chatCompletion(item.Parts, req.Model, prompt, id))
		}
	}
}

// chatTokens counts a chat request's words as generateContent's usage
// counts them (tokens), so one script gives both endpoints the same usage.
func chatTokens(path string, body []byte) int {
	r, _ := wire.RequestOf(&cassettes.Request{Method: http.MethodPost, Path: path, Body: body})
	return tokens(wire.GenerateContentBody(r))
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

// chatChunks are a streamed answer's events: one chunk per part (a tool
// call with its index among the calls), the last with the finish reason,
// then the usage when asked for, then [DONE].
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
	return append(out, []byte("[DONE]"))
}

func writeChatStream(w http.ResponseWriter, chunks [][]byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		if f != nil {
			f.Flush()
		}
	}
}
