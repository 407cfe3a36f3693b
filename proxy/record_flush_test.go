package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// pipeUpstream answers with an SSE body the test writes piece by piece.
type pipeUpstream struct{ body io.ReadCloser }

func (u pipeUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {workload.SSEContentType}},
		ContentLength: -1, Body: u.body, Request: r}, nil
}

// flushWriter records what the client has been sent at each flush.
type flushWriter struct {
	mu      sync.Mutex
	h       http.Header
	buf     bytes.Buffer
	flushed []string
	notify  chan string
}

func (w *flushWriter) Header() http.Header { return w.h }
func (w *flushWriter) WriteHeader(int)     {}
func (w *flushWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}
func (w *flushWriter) Flush() {
	w.mu.Lock()
	s := w.buf.String()
	w.flushed = append(w.flushed, s)
	w.mu.Unlock()
	select {
	case w.notify <- s:
	default:
	}
}

// While recording, an event is flushed to the client as soon as it has
// come, never held for the next one; events that came in one read leave
// in one flush.
func TestRecordFlushesEachEventAsItComes(t *testing.T) {
	pr, pw := io.Pipe()
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModePassthrough,
		Upstream: &url.URL{Scheme: "http", Host: "upstream.invalid"}, Transport: pipeUpstream{body: pr}})
	if err != nil {
		t.Fatal(err)
	}
	events := workload.SSEEventList()
	w := &flushWriter{h: http.Header{}, notify: make(chan string, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := httptest.NewRequest(http.MethodPost, workload.SSEPath, bytes.NewReader(workload.TurnRequest(1)))
		srv.ServeHTTP(w, r)
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case got := <-w.notify:
				if got == want {
					return
				}
			case <-deadline:
				t.Fatalf("the client was never flushed %q", want)
			}
		}
	}
	pw.Write(events[0])
	waitFor(string(events[0])) // alone in the pipe: flushed before anything else is sent
	pw.Write(bytes.Join(events[1:4], nil))
	waitFor(string(bytes.Join(events[:4], nil)))
	pw.Close()
	<-done
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.flushed {
		if f == string(bytes.Join(events[:2], nil)) || f == string(bytes.Join(events[:3], nil)) {
			t.Errorf("events that came in one read were flushed one by one: %d flushes", len(w.flushed))
			break
		}
	}
}
