package proxy_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// discardWriter is a ResponseWriter that keeps only the status and the
// byte count, so a benchmark measures the handler, not a recorder.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(b)
	return len(b), nil
}
func (w *discardWriter) Flush() {}

// Deadlines are accepted, as net/http's writer accepts them, so the
// handler takes the path it takes when served.
func (w *discardWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *discardWriter) SetWriteDeadline(time.Time) error { return nil }

// benchServer replays xs (placed as a recording would place them) with
// --allow-repeats, as `make bench` runs it; opts adjust the configuration.
func benchServer(b testing.TB, xs []*cassettes.Exchange, opts ...func(*proxy.Config)) *proxy.Server {
	b.Helper()
	dir := b.TempDir()
	conversation.Organize(matcher.Default(), xs)
	if err := cassettes.Save(filepath.Join(dir, "default.yaml"), &cassettes.Cassette{Name: "default", Exchanges: xs}, nil); err != nil {
		b.Fatal(err)
	}
	cfg := proxy.Config{Mode: proxy.ModeReplay, Dir: dir, AllowRepeats: true}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := proxy.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

func benchReplay(b *testing.B, target string, wantBytes int, opts ...func(*proxy.Config)) {
	h := benchServer(b, workload.Exchanges(), opts...).Handler()
	body := workload.Request()
	b.SetBytes(int64(len(body) + wantBytes))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK || w.n != wantBytes {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
}

// BenchmarkReplayJSON is adkproxy's whole handler for one replayed
// generateContent call with the 4 KB request and the 2 KB answer, without
// the HTTP server around it.
func BenchmarkReplayJSON(b *testing.B) {
	benchReplay(b, workload.JSONPath, len(workload.JSONResponse()))
}

// BenchmarkReplayJSONRedacting is the same with a secret to scrub, as
// when the client sends its API key: the repeated body is found clean once.
func BenchmarkReplayJSONRedacting(b *testing.B) {
	benchReplay(b, workload.JSONPath, len(workload.JSONResponse()), func(c *proxy.Config) {
		c.Redactor = cassettes.NewRedactor("AIzaSy-bench-key-0123456789")
	})
}

// BenchmarkReplaySSE is the same for the 20-event stream.
func BenchmarkReplaySSE(b *testing.B) {
	benchReplay(b, workload.SSEPath, len(workload.SSEBody()))
}

// BenchmarkNewReplay is the replay start-up work for one cassette of
// realistic interactions read up front (CheckAll): load the YAML,
// organise, fingerprint and index.
func BenchmarkNewReplay(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("interactions=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			xs := make([]*cassettes.Exchange, n)
			for i := range xs {
				xs[i] = workload.MixExchange(i)
				xs[i].Place = &cassettes.Place{Session: i + 1, Invocation: 1, User: fmt.Sprintf("Plan two days outdoors for me (trip %d)", i), Step: 2, Agent: "travel_agent"}
			}
			path := filepath.Join(dir, "default.yaml")
			if err := cassettes.Save(path, &cassettes.Cassette{Name: "default", Exchanges: xs}, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := proxy.New(proxy.Config{Mode: proxy.ModeReplay, Dir: dir, CheckAll: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
