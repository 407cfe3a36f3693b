package cassettes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// realisticCassette has n exchanges shaped like Gemini traffic: a 4 KB
// compact JSON request, a 2 KB indented JSON response, and every fifth
// response streamed as 20 SSE events.
func realisticCassette(n int) *Cassette {
	c := &Cassette{Name: "bench/realistic"}
	for i := 0; i < n; i++ {
		req := map[string]any{
			"contents": []any{map[string]any{
				"role":  "user",
				"parts": []any{map[string]any{"text": fmt.Sprintf("turn %d: %s", i, strings.Repeat("Tell me about record and replay proxies. ", 95))}},
			}},
			"generationConfig": map[string]any{"temperature": 0.4, "maxOutputTokens": 1024},
		}
		reqBody, _ := json.Marshal(req)
		reqBody = append(reqBody, '\n')
		resp := map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": strings.Repeat("Proxies record traffic \"exactly\".\n", 50)}}},
				"finishReason": "STOP",
			}},
			"usageMetadata": map[string]any{"promptTokenCount": 1000 + i, "candidatesTokenCount": 400, "totalTokenCount": 1400 + i},
			"modelVersion":  "gemini-2.0-flash",
		}
		respBody, _ := json.MarshalIndent(resp, "", "  ")
		respBody = append(respBody, '\n')
		x := &Exchange{
			Request: Request{
				Method: "POST",
				Path:   "/v1beta/models/gemini-2.0-flash:generateContent",
				Header: http.Header{"Content-Type": {"application/json"}, "X-Goog-Api-Client": {"google-genai-sdk/1.0.0 gl-go/1.26"}},
				Body:   reqBody,
			},
			Response: Response{
				Status:  200,
				Header:  http.Header{"Content-Type": {"application/json; charset=UTF-8"}, "Vary": {"Origin", "X-Origin", "Referer"}},
				Body:    respBody,
				Latency: time.Duration(i+1) * 1234567 * time.Nanosecond,
			},
		}
		if i%5 == 0 {
			x.Request.Path = "/v1beta/models/gemini-2.0-flash:streamGenerateContent"
			x.Request.Query = "alt=sse"
			x.Response.Body = nil
			x.Response.Header = http.Header{"Content-Type": {"text/event-stream"}}
			for e := 0; e < 20; e++ {
				x.Response.Events = append(x.Response.Events, Event{
					Data:  []byte("data: " + sseChunk(e) + "\r\n\r\n"),
					After: time.Duration(e) * 31 * time.Millisecond,
				})
			}
		}
		c.Exchanges = append(c.Exchanges, x)
	}
	return c
}

// placedCassette is realisticCassette with its exchanges in sessions of
// up to three invocations of two steps, plus two unplaced exchanges.
func placedCassette(n int) *Cassette {
	c := realisticCassette(n)
	for i, x := range c.Exchanges[:n-2] {
		x.Place = &Place{Session: i/6 + 1, Invocation: i%6/2 + 1, User: fmt.Sprintf("question %d", i/2), Step: i % 2, Agent: "root"}
	}
	return c
}

func BenchmarkMarshal(b *testing.B) {
	c := placedCassette(200)
	data, err := Marshal(c)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	data, err := Marshal(placedCassette(200))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal("bench.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRealisticCassetteRoundTrip(t *testing.T) {
	c := realisticCassette(20)
	text := assertRoundTrip(t, c)
	if !strings.Contains(text, "body_encoding: json") || !strings.Contains(text, "- data: ") {
		t.Errorf("unexpected shape:\n%.2000s", text)
	}
}
