// A fault's answer to a chat completion (Gemini's OpenAI-compatible
// endpoint), in that endpoint's shapes: its error body, finish_reason
// values, chunks and [DONE].

package fault

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// IsChat reports whether r is a request to the OpenAI-compatible
// endpoint, whose faults WriteChat answers.
func IsChat(r *http.Request) bool {
	_, _, ok := wire.OpenAIRest(r.URL.Path)
	return ok
}

// ChatErrorBody is the endpoint's error body: Gemini's error (ErrorBody)
// as the one element of an array, as the compatibility layer answers
// ([{"error": {"code", "message", "status"}}]).
func ChatErrorBody(code int, status, message string, retryAfterSeconds int) []byte {
	one := ErrorBody(code, status, message, retryAfterSeconds)
	return append(append([]byte("[\n"), one[:len(one)-1]...), "\n]\n"...)
}

// WriteChatError answers with the endpoint's error.
func WriteChatError(w http.ResponseWriter, code int, status, message string, retryAfter int) {
	writeErrorBody(w, code, retryAfter, ChatErrorBody(code, status, message, retryAfter))
}

// WriteChat is Write for a chat completion: stream says whether the
// request asked for one (its body's "stream"), model is the answer's
// model. A status is the endpoint's error; safety a choice with
// finish_reason content_filter and no content; malformed-call one with
// finish_reason malformed_function_call (the endpoint has no OpenAI name
// for Gemini's MALFORMED_FUNCTION_CALL; wire reads it back as that);
// empty an answer with no choices; reset and truncated-json cut answer.
func WriteChat(w http.ResponseWriter, what What, answer *cassettes.Response, stream bool, model string) {
	switch what.Kind {
	case Status:
		msg, ok := statusMessages[what.Code]
		if !ok {
			msg = http.StatusText(what.Code) + "."
		}
		WriteChatError(w, what.Code, StatusName(what.Code), msg, int(what.RetryAfter.Seconds()))
	case Reset:
		reset(w, what.Events, answer)
	case Safety, MalformedCall, Empty:
		WriteChatAnswer(w, stream, chatFaultChunks(what.Kind, model, stream))
	case TruncatedJSON:
		truncatedChat(w, answer, stream)
	}
}

// WriteChatAnswer writes chat completion bodies: the last one whole, or
// for a stream each as an SSE event ("data: JSON" and a blank line) and
// then data: [DONE].
func WriteChatAnswer(w http.ResponseWriter, stream bool, chunks [][]byte) {
	h := w.Header()
	if !stream {
		body := chunks[len(chunks)-1]
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
		return
	}
	h.Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, c := range append(chunks, []byte("[DONE]")) {
		fmt.Fprintf(w, "data: %s\n\n", c)
		if f != nil {
			f.Flush()
		}
	}
}

// chatFaultChunks is a fault's answer: a whole completion, or one chunk.
func chatFaultChunks(kind WhatKind, model string, stream bool) [][]byte {
	object, msgKey := "chat.completion", "message"
	if stream {
		object, msgKey = "chat.completion.chunk", "delta"
	}
	choices := []any{}
	switch kind {
	case Safety:
		choices = []any{map[string]any{"index": 0, msgKey: map[string]any{"role": "assistant", "content": nil}, "finish_reason": "content_filter"}}
	case MalformedCall:
		choices = []any{map[string]any{"index": 0, msgKey: map[string]any{"role": "assistant", "content": nil}, "finish_reason": "malformed_function_call"}}
	}
	body := map[string]any{"id": "chatcmpl-adkproxy-fault", "object": object, "created": 0, "model": model, "choices": choices}
	if !stream {
		body["usage"] = map[string]any{"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}
	}
	b, _ := json.Marshal(body)
	return [][]byte{b}
}

// truncatedChat sends answer with its JSON cut in half: a whole body's, or
// a stream's last chunk before [DONE], nothing after it. With no answer to
// cut, the opening of one is sent.
func truncatedChat(w http.ResponseWriter, answer *cassettes.Response, stream bool) {
	h := w.Header()
	if answer == nil || answer.Status != http.StatusOK || answer.Streamed() != stream || stream && lastChunk(answer) < 0 {
		opening := `{"id": "chatcmpl-adkproxy-fault", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is`
		answer = &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(opening + ` sunny."}}]}`)}
		if stream {
			answer = &cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Events: []cassettes.Event{{Data: []byte(`data: {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "It is sunny."}}]}` + "\n\n")}}}
		}
	}
	for k, v := range answer.Header {
		h[k] = v
	}
	h.Del("Content-Encoding") // the cut is in the JSON, not in a compressed stream
	if !stream {
		body := answer.Body[:len(answer.Body)/2]
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(answer.Status)
		w.Write(body)
		return
	}
	h.Del("Content-Length")
	w.WriteHeader(answer.Status)
	last := lastChunk(answer)
	for _, ev := range answer.Events[:last] {
		w.Write(ev.Data)
	}
	cut := answer.Events[last].Data
	w.Write(cut[:len(cut)/2])
}

// lastChunk is the index of a stream's last event that holds JSON (not
// [DONE]), or -1.
func lastChunk(answer *cassettes.Response) int {
	for i := len(answer.Events) - 1; i >= 0; i-- {
		if d := wire.EventData(answer.Events[i].Data); len(d) > 0 && d[0] == '{' {
			return i
		}
	}
	return -1
}
