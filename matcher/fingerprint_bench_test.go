package matcher_test

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/matcher"
)

// benchRequest is the 4 KB generateContent request `make bench` sends: a
// history with a function call and its response, two tool declarations and
// a system instruction.
func benchRequest() *cassettes.Request {
	return &cassettes.Request{Method: http.MethodPost, Path: workload.JSONPath,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: workload.Request()}
}

// BenchmarkFingerprint4KB is the per-request matching cost in replay:
// parse, drop ignored fields, canonicalise, hash.
func BenchmarkFingerprint4KB(b *testing.B) {
	req := benchRequest()
	m := matcher.Default()
	b.SetBytes(int64(len(req.Body)))
	b.ReportAllocs()
	for b.Loop() {
		m.Fingerprint(req)
	}
}

// BenchmarkCanonical4KB is the canonical form alone, from bytes: the JSON
// parse and the sorted-key rendering that fingerprints hash.
func BenchmarkCanonical4KB(b *testing.B) {
	body := workload.Request()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	buf := make([]byte, 0, 2*len(body))
	for b.Loop() {
		v, ok := matcher.ParseJSON(body)
		if !ok {
			b.Fatal("not JSON")
		}
		buf = matcher.AppendCanonical(buf[:0], v)
	}
}

// BenchmarkCanonicalAppend4KB renders an already parsed body: the share of
// BenchmarkCanonical4KB that is not parsing.
func BenchmarkCanonicalAppend4KB(b *testing.B) {
	body := workload.Request()
	v, ok := matcher.ParseJSON(body)
	if !ok {
		b.Fatal("not JSON")
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	buf := make([]byte, 0, 2*len(body))
	for b.Loop() {
		buf = matcher.AppendCanonical(buf[:0], v)
	}
}

// BenchmarkAnalyze4KB reads the model call (agent, history key, step) that
// recording and miss reports place in the conversation.
func BenchmarkAnalyze4KB(b *testing.B) {
	req := benchRequest()
	m := matcher.Default()
	b.SetBytes(int64(len(req.Body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := conversation.Analyze(m, req.Path, req.Body); !ok {
			b.Fatal("not a model call")
		}
	}
}

// BenchmarkFingerprintInlineData1MB is the matching cost of a request
// holding a 1 MB image in URL-safe base64 (genai for Python's spelling),
// which the canonical form rewrites to the standard alphabet.
func BenchmarkFingerprintInlineData1MB(b *testing.B) {
	image := make([]byte, 1<<20)
	for i := range image {
		image[i] = byte(i * 7)
	}
	body := `{"contents":[{"role":"user","parts":[{"text":"look"},{"inlineData":{"mimeType":"image/png","data":"` +
		base64.RawURLEncoding.EncodeToString(image) + `"}}]}]}`
	req := &cassettes.Request{Method: http.MethodPost, Path: workload.JSONPath, Body: []byte(body)}
	m := matcher.Default()
	b.SetBytes(int64(len(req.Body)))
	b.ReportAllocs()
	for b.Loop() {
		m.Fingerprint(req)
	}
}
