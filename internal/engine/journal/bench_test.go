// The crash-safety cost of recording one exchange.

package journal

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// BenchmarkJournalAppend is the crash-safety cost of recording one
// exchange: JSON-encode it, scan it for secrets, append and fsync. (The
// append and sync alone, with and without the prewritten tail, are
// internal/base/journalfile's BenchmarkFileAppend*.)
func BenchmarkJournalAppend(b *testing.B) {
	x := realisticExchange()
	j, err := Open(filepath.Join(b.TempDir(), "bench.yaml"), "bench", true, cassettes.NewRedactor())
	if err != nil {
		b.Fatal(err)
	}
	defer j.Remove()
	b.ReportAllocs()
	for b.Loop() {
		if err := j.Append(x); err != nil {
			b.Fatal(err)
		}
	}
}

// realisticExchange is a generateContent call of about 4 KB each way, as
// cassettes' realisticCassette has them.
func realisticExchange() *cassettes.Exchange {
	req, _ := json.Marshal(map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{
			"text": "turn 0: " + strings.Repeat("Tell me about record and replay proxies. ", 95)}}}},
		"generationConfig": map[string]any{"temperature": 0.4, "maxOutputTokens": 1024},
	})
	resp, _ := json.MarshalIndent(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": strings.Repeat("Proxies record traffic \"exactly\".\n", 50)}}},
			"finishReason": "STOP",
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 1000, "candidatesTokenCount": 400, "totalTokenCount": 1400},
		"modelVersion":  "gemini-2.0-flash",
	}, "", "  ")
	return &cassettes.Exchange{
		Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/gemini-2.0-flash:generateContent",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: append(req, '\n')},
		Response: cassettes.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}},
			Body: append(resp, '\n')},
		Place: &cassettes.Place{Session: 1, Invocation: 1, Step: 1, User: "turn 0", Agent: "bench"},
	}
}
