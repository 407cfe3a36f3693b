package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

const streamPath = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"

// deadlockGuard bounds a wait that only a bug could make endless; it is not
// a speed assertion.
const deadlockGuard = 20 * time.Second

// TestRecordStreamsEventsInLockstep: the upstream withholds event 2 until
// the client has received event 1, so a proxy that buffered the stream
// would never finish.
func TestRecordStreamsEventsInLockstep(t *testing.T) {
	clientGotFirst := make(chan struct{})
	upstream := &fakegemini.Handler{BeforeEvent: func(i int) {
		if i == 1 {
			select {
			case <-clientGotFirst:
			case <-time.After(deadlockGuard):
			}
		}
	}}
	up := httptest.NewServer(upstream)
	defer up.Close()
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: testutil.OutDir(t), Upstream: mustURL(t, up.URL)})

	resp := post(t, rec.URL, streamPath, nil, `{"contents":[{"role":"user","parts":[{"text":"one two three four five six"}]}]}`)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	first := readEvent(t, br)
	if !strings.HasPrefix(first, "data: ") || !strings.HasSuffix(first, "\r\n\r\n") {
		t.Fatalf("first event %q is not a Gemini SSE event", first)
	}
	close(clientGotFirst)
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(rest), "\r\n\r\n"); n != 2 {
		t.Fatalf("after the first event got %d more, want 2: %q", n, rest)
	}
}

// readEvent reads up to and including the first blank-line separator, failing
// (rather than hanging) if the event never arrives.
func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	type result struct {
		s   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var b strings.Builder
		for !strings.HasSuffix(b.String(), "\r\n\r\n") {
			line, err := br.ReadString('\n')
			b.WriteString(line)
			if err != nil {
				ch <- result{b.String(), err}
				return
			}
		}
		ch <- result{b.String(), nil}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("reading event: %v (got %q)", r.err, r.s)
		}
		return r.s
	case <-time.After(deadlockGuard):
		t.Fatal("the first event never reached the client: the stream is buffered")
		return ""
	}
}

// scriptedStream serves fixed bytes as separate flushed writes and can cut
// the connection after them.
func scriptedStream(events []string, reset bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Disposition", "attachment")
		w.Header().Set("Date", "Fri, 20 Feb 2026 12:38:32 GMT")
		w.Header().Set("Server-Timing", "gfet4t7; dur=786")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
		if reset {
			panic(http.ErrAbortHandler)
		}
	}
}

// TestStreamReplaysByteExact covers the three ways a stream ends:
// completely, with a bare error body after the events (Gemini's mid-stream
// error), and with the connection cut.
func TestStreamReplaysByteExact(t *testing.T) {
	ev1 := `data: {"candidates": [{"content": {"parts": [{"text": "Hel"}],"role": "model"},"index": 0}]}` + "\r\n\r\n"
	ev2 := `data: {"candidates": [{"content": {"parts": [{"text": "lo"}],"role": "model"},"finishReason": "STOP","index": 0}]}` + "\r\n\r\n"
	bareError := "{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource exhausted\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n"
	lf := "data: {\"a\":1}\n\n"
	cases := []struct {
		name   string
		events []string
		reset  bool
		end    cassettes.End
	}{
		{"complete", []string{ev1, ev2}, false, cassettes.EndComplete},
		{"lf separators", []string{lf, lf}, false, cassettes.EndComplete},
		{"mid-stream error body", []string{ev1, bareError}, false, cassettes.EndEOF},
		{"connection reset", []string{ev1}, true, cassettes.EndReset},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testutil.OutDir(t)
			up := httptest.NewServer(scriptedStream(tc.events, tc.reset))
			rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
			recorded, recErr := readAll(t, rec.URL)
			rec.stop(t)
			up.Close()

			want := strings.Join(tc.events, "")
			if recorded != want {
				t.Fatalf("recording client got %q, want %q", recorded, want)
			}
			if (recErr != nil) != tc.reset {
				t.Fatalf("recording client error = %v, want an error only for a reset", recErr)
			}
			c, err := cassettes.Load(dir + "/default.yaml")
			if err != nil {
				t.Fatal(err)
			}
			resp := c.Exchanges[0].Response
			if resp.End != tc.end || len(resp.Events) != len(tc.events) {
				t.Fatalf("stored end %q with %d events, want %q with %d", resp.End, len(resp.Events), tc.end, len(tc.events))
			}
			if resp.Header.Get("Date") != "" || resp.Header.Get("Server-Timing") != "" {
				t.Errorf("volatile headers were stored: %v", resp.Header)
			}

			rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
			replayed, repErr := readAll(t, rep.URL)
			if replayed != want {
				t.Fatalf("replay gave %q, want %q", replayed, want)
			}
			if (repErr != nil) != tc.reset {
				t.Fatalf("replay client error = %v, want an error only for a reset", repErr)
			}
		})
	}
}

func readAll(t *testing.T, base string) (string, error) {
	t.Helper()
	resp := post(t, base, streamPath, nil, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q, want text/event-stream", ct)
	}
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// gateClock blocks each sleep until the test releases it, and records the
// durations asked for.
type gateClock struct {
	mu     sync.Mutex
	slept  []time.Duration
	permit chan struct{}
}

func (c *gateClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	select {
	case <-c.permit:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestReplayTimingWaitsRecordedGaps: with --replay-timing each event waits
// its recorded delay, and each event reaches the client before the next
// wait ends (events are flushed one by one in replay too).
func TestReplayTimingWaitsRecordedGaps(t *testing.T) {
	dir := testutil.OutDir(t)
	events := []*cassettes.Exchange{{
		Request: cassettes.Request{Method: "POST", Path: "/v1beta/models/m:streamGenerateContent", Query: "alt=sse",
			Body: []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)},
		Response: cassettes.Response{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Events: []cassettes.Event{
			{Data: []byte("data: {\"n\":1}\r\n\r\n"), After: 120 * time.Millisecond},
			{Data: []byte("data: {\"n\":2}\r\n\r\n"), After: 340 * time.Millisecond},
		}},
	}}
	if err := cassettes.Save(dir+"/default.yaml", &cassettes.Cassette{Name: "default", Exchanges: events}, nil); err != nil {
		t.Fatal(err)
	}
	clock := &gateClock{permit: make(chan struct{})}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, ReplayTiming: true, Clock: clock})
	resp := post(t, rep.URL, "/v1beta/models/m:streamGenerateContent?alt=sse", nil, `{"contents":[{"parts":[{"text":"hi"}],"role":"user"}]}`)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	clock.permit <- struct{}{}
	if got := readEvent(t, br); got != "data: {\"n\":1}\r\n\r\n" {
		t.Fatalf("first event %q", got)
	}
	clock.permit <- struct{}{}
	if got := readEvent(t, br); got != "data: {\"n\":2}\r\n\r\n" {
		t.Fatalf("second event %q", got)
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	if fmt.Sprint(clock.slept) != "[120ms 340ms]" {
		t.Fatalf("slept %v, want [120ms 340ms]", clock.slept)
	}
}

// TestReplayIsInstantByDefault: without --replay-timing the clock is never
// consulted.
func TestReplayIsInstantByDefault(t *testing.T) {
	dir := testutil.OutDir(t)
	x := &cassettes.Exchange{
		Request:  cassettes.Request{Method: "POST", Path: "/v1beta/models/m:generateContent", Body: []byte(`{}`)},
		Response: cassettes.Response{Status: 200, Body: []byte("{}\n"), Latency: time.Hour},
	}
	if err := cassettes.Save(dir+"/default.yaml", &cassettes.Cassette{Exchanges: []*cassettes.Exchange{x}}, nil); err != nil {
		t.Fatal(err)
	}
	clock := &gateClock{permit: make(chan struct{})} // would block forever if used
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Clock: clock})
	resp := post(t, rep.URL, "/v1beta/models/m:generateContent", nil, `{}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(b, []byte("{}\n")) || len(clock.slept) != 0 {
		t.Fatalf("got %q after %d sleeps", b, len(clock.slept))
	}
}
