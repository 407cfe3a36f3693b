package proxy_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/proxy"
)

// rewindBody is a request body that can be sent again without allocating.
type rewindBody struct{ bytes.Reader }

func (*rewindBody) Close() error { return nil }

// TestReplayedRequestAllocations bounds what adkproxy itself allocates to
// answer a request whose bytes equal a recording's, as `make bench` sends
// them (--allow-repeats): the request, its body reader and the response
// header map are made once and reused, so only the handler's own
// allocations are counted. Every allocation is paid again by every
// replayed request, and again by the collector; the bounds are today's
// counts, so a change that adds one fails here and has to say why.
func TestReplayedRequestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	cases := []struct {
		name, target string
		header       http.Header
		max          float64
	}{
		// The request's stored form (kept by the report when it misses),
		// the pointer the body pool keeps, the one-byte read that finds
		// the body's end. Before the answer's header block was worked out
		// once and the deadlines were armed without closures: 12 and 9.
		{"json", workload.JSONPath, nil, 3},
		{"sse", workload.SSEPath, nil, 3},
		// With a key: the same, and the path's copy for scrubbing; the key
		// is known already, so it is not learnt again (16 before).
		{"json with a key", workload.JSONPath, http.Header{"X-Goog-Api-Key": {"AIzaSy-bench-key-0123456789"}}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := benchServer(t, workload.Exchanges(), func(c *proxy.Config) {
				c.Redactor = cassettes.NewRedactor()
			}).Handler()
			payload := workload.Request()
			body := &rewindBody{}
			r := httptest.NewRequest(http.MethodPost, tc.target, body)
			r.Header.Set("Content-Type", "application/json")
			for k, vs := range tc.header {
				r.Header[k] = vs
			}
			w := &discardWriter{h: http.Header{}}
			replay := func() {
				body.Reset(payload)
				r.ContentLength = int64(len(payload))
				clear(w.h)
				w.status, w.n = 0, 0
				h.ServeHTTP(w, r)
			}
			replay()
			if w.status != http.StatusOK || w.n == 0 {
				t.Fatalf("not replayed: status %d, %d bytes", w.status, w.n)
			}
			if got := testing.AllocsPerRun(200, replay); got > tc.max {
				t.Errorf("%s: %.0f allocations per replayed request; want at most %.0f", tc.name, got, tc.max)
			}
		})
	}
}
