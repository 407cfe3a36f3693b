package proxy_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// testMaxBody keeps the oversized answers of these tests small.
const testMaxBody = 64 << 10

// bigJSON is a valid JSON answer of exactly n bytes.
func bigJSON(n int) []byte {
	head, tail := `{"candidates":[{"content":{"parts":[{"text":"`, `"}]}}]}`
	return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
}

// TestOversizedAnswerIsPassedWholeAndNotRecorded: an answer larger than
// MaxBody, whether its length is declared, unknown (chunked) or only known
// after decoding gzip, reaches the client whole; it is not recorded, and
// the run fails naming the request, the size and the limit.
func TestOversizedAnswerIsPassedWholeAndNotRecorded(t *testing.T) {
	answer := bigJSON(testMaxBody*3 + 17)
	cases := map[string]http.HandlerFunc{
		"content-length": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
			w.Write(answer)
		},
		"chunked": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			for rest := answer; len(rest) > 0; {
				n := min(len(rest), 4096)
				w.Write(rest[:n])
				w.(http.Flusher).Flush()
				rest = rest[n:]
			}
		},
		"gzip": func(w http.ResponseWriter, r *http.Request) {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(answer)
			zw.Close()
			if z.Len() >= testMaxBody {
				t.Errorf("the compressed answer (%d bytes) should be under the limit", z.Len())
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(z.Len()))
			w.Write(z.Bytes())
		},
	}
	for name, handler := range cases {
		t.Run(name, func(t *testing.T) {
			up := httptest.NewServer(handler)
			defer up.Close()
			dir := testutil.OutDir(t)
			rec := startProxy(t, withHints(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
				MaxBody: testMaxBody}, proxy.Hints{TooLarge: "raise --max-body"}))
			resp := post(t, rec.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"big"}]}]}`)
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || !bytes.Equal(got, answer) {
				t.Fatalf("client got status %d, %d of %d bytes, err %v; want the whole answer", resp.StatusCode, len(got), len(answer), err)
			}
			rec.stop(t)
			ferr := rec.Failure()
			if !errors.Is(ferr, proxy.ErrRunFailed) {
				t.Fatalf("Failure() = %v; want the run to fail", ferr)
			}
			for _, want := range []string{"POST " + generatePath, strconv.Itoa(len(answer)) + " bytes", strconv.Itoa(testMaxBody), "--max-body"} {
				if !strings.Contains(ferr.Error(), want) {
					t.Errorf("failure %q does not name %q", ferr, want)
				}
			}
			assertNotRecorded(t, dir)
		})
	}
}

// TestOversizedAnswerInPassthroughDoesNotFail: passthrough records
// nothing, so an answer over the limit is passed on whole and the run
// does not fail for it.
func TestOversizedAnswerInPassthroughDoesNotFail(t *testing.T) {
	answer := bigJSON(testMaxBody*2 + 5)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(answer) }))
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModePassthrough, Dir: dir,
		Upstream: mustURL(t, up.URL), MaxBody: testMaxBody})
	resp := post(t, rec.URL, generatePath, nil, `{"contents":[{"role":"user","parts":[{"text":"big"}]}]}`)
	if got := body(t, resp); got != string(answer) {
		t.Fatalf("client got %d of %d bytes", len(got), len(answer))
	}
	rec.stop(t)
	if err := rec.Failure(); err != nil {
		t.Fatalf("Failure() = %v; passthrough keeps nothing, so nothing is missing", err)
	}
}

// assertNotRecorded: the cassette, if written at all, holds no exchange.
func assertNotRecorded(t *testing.T, dir string) {
	t.Helper()
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if errors.Is(err, cassettes.ErrNotFound) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range c.Exchanges {
		t.Errorf("an oversized answer was stored (%d body bytes, %d events, end %q)", len(x.Response.Body), len(x.Response.Events), x.Response.End)
	}
}

// TestEndlessStreamIsPassedOnAndNotRecorded: an SSE stream that never ends
// keeps flowing to the client, event after whole event, well past MaxBody;
// once the client hangs up nothing is recorded and the run fails.
func TestEndlessStreamIsPassedOnAndNotRecorded(t *testing.T) {
	event := func(i int) string {
		return fmt.Sprintf("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"%05d %s\"}]}}]}\r\n\r\n", i, strings.Repeat("y", 900))
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; r.Context().Err() == nil; i++ {
			if _, err := io.WriteString(w, event(i)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	defer up.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, withHints(proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		MaxBody: testMaxBody}, proxy.Hints{TooLarge: "raise --max-body"}))
	resp := post(t, rec.URL, streamPath, nil, `{"contents":[{"role":"user","parts":[{"text":"endless"}]}]}`)
	br := bufio.NewReader(resp.Body)
	want := 4 * testMaxBody / len(event(0))
	for i := 0; i < want; i++ {
		if got := readEvent(t, br); got != event(i) {
			t.Fatalf("event %d: got %q; want every event whole, past the limit", i, got)
		}
	}
	resp.Body.Close()
	rec.stop(t)
	ferr := rec.Failure()
	if !errors.Is(ferr, proxy.ErrRunFailed) || !strings.Contains(ferr.Error(), "--max-body") || !strings.Contains(ferr.Error(), streamPath[:strings.IndexByte(streamPath, '?')]) {
		t.Fatalf("Failure() = %v; want the run to fail naming the request and --max-body", ferr)
	}
	assertNotRecorded(t, dir)
}

// TestOversizedRequestRefusedBeforeItsBody: a request declaring a body
// over MaxBody is answered 413 at once, before any of its body is sent, so
// the proxy buffers none of it.
func TestOversizedRequestRefusedBeforeItsBody(t *testing.T) {
	dir := testutil.OutDir(t)
	os.WriteFile(filepath.Join(dir, "default.yaml"), []byte("version: 2\nname: default\n"), 0o644)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, MaxBody: testMaxBody})
	conn, err := net.Dial("tcp", strings.TrimPrefix(rep.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second)) // a failsafe against a proxy that waits for the body
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", generatePath, testMaxBody*2)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body was sent: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d; want 413", resp.StatusCode)
	}
}
