// Package fakejudge is a scripted stand-in for a Gemini judge model, for
// tests of the LLM-judged metrics: it answers generateContent with the
// text (or the error status) a script gives for the prompt, in the wire
// format the genai SDK reads, with a usageMetadata so costs add up.
package fakejudge

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Reply is one scripted answer: Status 0 or 200 answers Text; any other
// status answers a Gemini error with that code.
type Reply struct {
	Status int
	Text   string
}

// Script picks the answer to a prompt (its text parts joined by "\n");
// seen is how many times this exact prompt was asked before (from 0), so a
// script can answer the samples of one prompt differently, and the same
// way in every run.
type Script func(prompt string, seen int) Reply

// Handler serves the fake judge.
type Handler struct {
	Script Script

	mu    sync.Mutex
	seen  map[string]int
	calls int
}

// Calls is how many requests the judge answered.
func (h *Handler) Calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

type request struct {
	Contents []struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req request
	if !strings.HasSuffix(r.URL.Path, ":generateContent") || json.Unmarshal(body, &req) != nil {
		http.Error(w, "fakejudge: want a generateContent request", http.StatusNotFound)
		return
	}
	var parts []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			parts = append(parts, p.Text)
		}
	}
	prompt := strings.Join(parts, "\n")
	h.mu.Lock()
	if h.seen == nil {
		h.seen = map[string]int{}
	}
	seen := h.seen[prompt]
	h.seen[prompt]++
	h.calls++
	h.mu.Unlock()
	reply := h.Script(prompt, seen)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.WriteHeader(reply.Status)
		fmt.Fprintf(w, `{"error": {"code": %d, "message": "fakejudge: scripted error", "status": "UNAVAILABLE"}}`, reply.Status)
		return
	}
	promptTokens, outTokens := len(prompt)/4+1, len(reply.Text)/4+1
	out, _ := json.MarshalIndent(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": reply.Text}}},
			"finishReason": "STOP",
		}},
		"usageMetadata": map[string]any{"promptTokenCount": promptTokens, "candidatesTokenCount": outTokens,
			"totalTokenCount": promptTokens + outTokens},
		"modelVersion": "fake-judge",
	}, "", "  ")
	w.Write(out)
}
