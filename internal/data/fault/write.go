// A fault's answer, written the way the Gemini API answers: its error
// body, its finish reasons, its SSE framing.

package fault

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// statusNames are google.rpc.Code names of the HTTP statuses the Gemini
// API answers with.
var statusNames = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
	503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

// StatusName is the google.rpc.Code name for an HTTP status.
func StatusName(code int) string {
	if n, ok := statusNames[code]; ok {
		return n
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}

var statusMessages = map[int]string{
	429: "Resource has been exhausted (e.g. check quota).",
	500: "An internal error has occurred. Please retry.",
	503: "The model is overloaded. Please try again later.",
	504: "The request timed out. Please try again.",
}

// ErrorBody is a Gemini error body (google.rpc.Status, pretty-printed as
// the API sends it). A 429 carries a google.rpc.RetryInfo with its delay.
func ErrorBody(code int, status, message string, retryAfterSeconds int) []byte {
	// Fields in the API's order: code, message, status, details.
	type detail struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
	}
	var e struct {
		Error struct {
			Code    int      `json:"code"`
			Message string   `json:"message"`
			Status  string   `json:"status"`
			Details []detail `json:"details,omitempty"`
		} `json:"error"`
	}
	e.Error.Code, e.Error.Message, e.Error.Status = code, message, status
	if code == 429 {
		e.Error.Details = []detail{{"type.googleapis.com/google.rpc.RetryInfo", strconv.Itoa(retryAfterSeconds) + "s"}}
	}
	b, _ := json.MarshalIndent(e, "", "  ")
	return append(b, '\n')
}

// WriteError answers with a Gemini error.
func WriteError(w http.ResponseWriter, code int, status, message string, retryAfter int) {
	writeErrorBody(w, code, retryAfter, ErrorBody(code, status, message, retryAfter))
}

// writeErrorBody sends an error body with its status, JSON type, length
// and (on 429) Retry-After: the one shape both dialects' errors share.
func writeErrorBody(w http.ResponseWriter, code, retryAfter int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if code == 429 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(code)
	w.Write(body)
}

// Write answers r with the fault what instead of answer, the response the
// request would otherwise get (nil when there is none); Reset and
// TruncatedJSON cut it, the others ignore it. Delay and the Live faults
// are the caller's: Write does nothing for them. Reset ends the handler
// by panicking with http.ErrAbortHandler, as net/http wants. A chat
// completion is answered in its endpoint's shapes (WriteChat), streamed
// when the answer it stands in for was.
func Write(w http.ResponseWriter, r *http.Request, what What, answer *cassettes.Response) {
	if IsChat(r) {
		stream, model := false, ""
		if answer != nil {
			stream = answer.Streamed()
			model = wire.StepOf(&cassettes.Exchange{Request: cassettes.Request{Method: http.MethodPost, Path: r.URL.Path}, Response: *answer}).ModelVersion
		}
		WriteChat(w, what, answer, stream, model)
		return
	}
	switch what.Kind {
	case Status:
		msg, ok := statusMessages[what.Code]
		if !ok {
			msg = http.StatusText(what.Code) + "."
		}
		WriteError(w, what.Code, StatusName(what.Code), msg, int(what.RetryAfter.Seconds()))
	case Reset:
		reset(w, what.Events, answer)
	case Safety, MalformedCall, Empty:
		WriteAnswer(w, r, [][]byte{candidateBody(what.Kind, wire.ModelOfPath(r.URL.Path))})
	case TruncatedJSON:
		truncated(w, r, answer)
	}
}

// Streaming reports whether r asks for an SSE stream.
func Streaming(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || r.URL.Query().Get("alt") == "sse"
}

// WriteAnswer writes model answers: one JSON body, or for a streaming
// request one SSE event each ("data: JSON\r\n\r\n", as Gemini frames them).
func WriteAnswer(w http.ResponseWriter, r *http.Request, chunks [][]byte) {
	h := w.Header()
	if !Streaming(r) {
		body := chunks[len(chunks)-1]
		h.Set("Content-Type", "application/json; charset=UTF-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
		return
	}
	h.Set("Content-Type", "text/event-stream")
	h.Set("Content-Disposition", "attachment")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		w.Write(Event(c))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// Event frames one JSON chunk as an SSE event, compacted to one line.
func Event(chunk []byte) []byte {
	var v any
	if json.Unmarshal(chunk, &v) == nil {
		chunk, _ = json.Marshal(v)
	}
	return fmt.Appendf(nil, "data: %s\r\n\r\n", chunk)
}

func candidateBody(kind WhatKind, model string) []byte {
	resp := map[string]any{"modelVersion": model, "responseId": "adkproxy-fault",
		"usageMetadata": map[string]any{"promptTokenCount": 1, "totalTokenCount": 1}}
	switch kind {
	case Safety:
		resp["candidates"] = []any{map[string]any{"finishReason": "SAFETY", "index": 0, "safetyRatings": []any{
			map[string]any{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}}}
	case MalformedCall:
		resp["candidates"] = []any{map[string]any{"content": map[string]any{}, "finishReason": "MALFORMED_FUNCTION_CALL", "index": 0,
			"finishMessage": "Malformed function call: the model's call could not be parsed (adkproxy fault)."}}
	}
	b, _ := json.MarshalIndent(resp, "", "  ")
	return append(b, '\n')
}

// reset closes the connection: at once, or for a streamed answer after
// its first n events.
func reset(w http.ResponseWriter, n int, answer *cassettes.Response) {
	if n > 0 && answer != nil && answer.Streamed() {
		for k, v := range answer.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(answer.Status)
		for _, ev := range answer.Events[:min(n, len(answer.Events))] {
			w.Write(ev.Data)
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	panic(http.ErrAbortHandler)
}

// truncated sends the answer with its JSON cut in half: a whole body
// whose JSON ends early, or a stream whose last event does. With no
// answer to cut, a model answer's opening is sent.
func truncated(w http.ResponseWriter, r *http.Request, answer *cassettes.Response) {
	if answer == nil || answer.Status != http.StatusOK || answer.Streamed() && len(answer.Events) == 0 {
		answer = &cassettes.Response{Status: http.StatusOK, Body: []byte(`{"candidates": [{"content": {"parts": [{"text": "It is`)}
		if Streaming(r) {
			answer = &cassettes.Response{Status: http.StatusOK, Events: []cassettes.Event{{Data: []byte(`data: {"candidates": [{"content": {"parts": [{"text": "It is`)}}}
		}
	}
	h := w.Header()
	for k, v := range answer.Header {
		h[k] = v
	}
	h.Del("Content-Encoding") // the cut is in the JSON, not in a compressed stream
	if !answer.Streamed() {
		body := answer.Body[:len(answer.Body)/2]
		h.Set("Content-Type", "application/json; charset=UTF-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(answer.Status)
		w.Write(body)
		return
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(answer.Status)
	evs := answer.Events
	for _, ev := range evs[:len(evs)-1] {
		w.Write(ev.Data)
	}
	last := evs[len(evs)-1].Data
	w.Write(last[:len(last)/2])
}
