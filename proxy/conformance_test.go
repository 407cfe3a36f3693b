package proxy_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/httprr"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// The conformance suite replays real Gemini traffic (the shared httprr
// fixtures) through the proxy: every exchange is recorded from a fake
// upstream that answers exactly as the real API did, then replayed with the
// upstream gone, and the client must see the original bytes both times.

// conformanceEventWait bounds how long the fake upstream waits for the
// client to get one SSE event before it sends the next; only a proxy that
// holds events back ever makes it wait that long.
const conformanceEventWait = 10 * time.Second

// conformanceRequestTimeout keeps a broken proxy from hanging the suite.
const conformanceRequestTimeout = 30 * time.Second

// geminiTrafficDir returns the shared fixture folder. When it is missing
// the test is skipped, or fails when CI is set (testutil.Require).
func geminiTrafficDir(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "fixtures", "gemini-traffic")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		testutil.Require(t, "the shared fixture folder "+dir)
	} else if err != nil {
		t.Fatal(err)
	}
	return dir
}

// conformanceTotals adds up what the per-file subtests verified.
type conformanceTotals struct {
	ran                   atomic.Int64 // subtests started (fewer under -run)
	files, exchanges, sse atomic.Int64 // verified without failure
	// streamed counts SSE exchanges of two or more events that reached
	// the client event by event through the recording proxy.
	streamed atomic.Int64
}

func TestConformance(t *testing.T) {
	dir := geminiTrafficDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.httprr"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no *.httprr fixtures in %s", dir)
	}
	var totals conformanceTotals
	t.Run("file", func(t *testing.T) {
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				totals.ran.Add(1)
				xs, err := httprr.ParseFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if len(xs) == 0 {
					t.Fatalf("%s holds no exchanges", file)
				}
				conform(t, name, xs, &totals)
			})
		}
	})
	t.Logf("verified %d files, %d exchanges (%d SSE, %d of them seen streaming event by event)",
		totals.files.Load(), totals.exchanges.Load(), totals.sse.Load(), totals.streamed.Load())
	// The whole suite must show streaming at work at least once; a -run
	// filter may have picked files without multi-event streams.
	if !t.Failed() && totals.ran.Load() == int64(len(files)) && totals.streamed.Load() == 0 {
		t.Error("no SSE fixture with several events reached the client event by event")
	}
}

// TestConformanceSharedRequests records every fixture into one cassette.
// Several fixtures open with the very same request (the ToolCallback and
// MCPToolSetConfirmation tests, for instance) and got a different answer
// each time, so the proxy must hand identical requests their answers in
// recorded order, when recording and when replaying.
func TestConformanceSharedRequests(t *testing.T) {
	dir := geminiTrafficDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.httprr"))
	if err != nil {
		t.Fatal(err)
	}
	var all []httprr.Exchange
	for _, file := range files {
		xs, err := httprr.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, xs...)
	}
	// Make sure the case is really there: identical requests, different answers.
	first := map[string][]byte{}
	repeats := 0
	for _, x := range all {
		key := x.Request.Method + " " + x.Request.URL.String() + "\n" + string(x.Request.Body)
		if body, seen := first[key]; seen && !bytes.Equal(body, x.Response.Body) {
			repeats++
		} else if !seen {
			first[key] = x.Response.Body
		}
	}
	if repeats == 0 {
		t.Fatal("no two fixtures share a request with different answers; this test checks nothing")
	}
	var totals conformanceTotals
	conform(t, "all-fixtures", all, &totals)
	t.Logf("%d exchanges in one cassette, %d of them repeat an earlier request with a different answer", len(all), repeats)
}

// conform records xs through the proxy, checks what the client got and what
// the cassette holds, then replays it offline and checks again.
func conform(t *testing.T, name string, xs []httprr.Exchange, totals *conformanceTotals) {
	apiKey := "test-key-" + rand.Text() + rand.Text()
	cassetteDir := testutil.OutDir(t) // kept under $ADKPROXY_TEST_OUT for the secret scan

	// Record.
	up := newFixtureUpstream(t, xs, apiKey)
	defer up.Close()
	upURL, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := proxy.New(proxy.Config{
		Mode:           proxy.ModeRecord,
		Dir:            cassetteDir,
		Upstream:       upURL,
		VertexUpstream: upURL, // one fixture talks to Vertex AI
		Transport:      up.Client().Transport,
	})
	if err != nil {
		t.Fatal(err)
	}
	recServer := httptest.NewServer(rec)
	defer recServer.Close()
	client := &http.Client{Transport: &http.Transport{}}
	streamed := 0
	for i, x := range xs {
		resp := sendFixtureRequest(t, client, recServer.URL, name, apiKey, x)
		var body []byte
		if up.events[i] != nil {
			body, err = readEventsInStep(resp.Body, up.events[i], up.gates[i])
			if err == nil && len(up.events[i]) > 1 && !up.timedOut.Load() {
				streamed++
			}
		} else {
			body, err = io.ReadAll(resp.Body)
		}
		resp.Body.Close()
		if err != nil {
			t.Errorf("record, exchange %d: reading the body: %v", i+1, err)
			continue
		}
		checkFixtureResponse(t, fmt.Sprintf("record, exchange %d", i+1), resp, body, x)
	}
	recServer.Close() // waits for every handler, so the tapes are complete
	client.CloseIdleConnections()
	if err := rec.Close(); err != nil {
		t.Fatalf("writing the cassette: %v", err)
	}
	if st := rec.Stats(); st.Recorded != int64(len(xs)) || st.Failed != 0 || st.Unmatched != 0 {
		t.Errorf("record stats %+v; want %d recorded and no failures", st, len(xs))
	}
	up.Close()
	up.checkAllServed(t)
	checkNoSecretInDir(t, cassetteDir, apiKey)
	checkFixtureCassette(t, cassetteDir, name, xs)

	// Replay, with the upstream gone and a transport that must never be used.
	rep, err := proxy.New(proxy.Config{
		Mode:           proxy.ModeReplay,
		Dir:            cassetteDir,
		Upstream:       upURL,
		VertexUpstream: upURL,
		Transport:      offlineTransport{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	repServer := httptest.NewServer(rep)
	defer repServer.Close()
	for i, x := range xs {
		resp := sendFixtureRequest(t, client, repServer.URL, name, apiKey, x)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Errorf("replay, exchange %d: reading the body: %v", i+1, err)
			continue
		}
		checkFixtureResponse(t, fmt.Sprintf("replay, exchange %d", i+1), resp, body, x)
	}
	repServer.Close()
	client.CloseIdleConnections()
	if err := rep.Close(); err != nil {
		t.Errorf("closing the replaying proxy: %v", err)
	}
	st := rep.Stats()
	if st.Unmatched != 0 || st.Replayed != int64(len(xs)) || st.Failed != 0 {
		t.Errorf("replay stats %+v; want %d replayed, none unmatched or failed", st, len(xs))
		for _, m := range rep.Misses() {
			t.Logf("miss: %s", m.Message)
		}
	}

	if !t.Failed() {
		totals.files.Add(1)
		totals.exchanges.Add(int64(len(xs)))
		for _, evs := range up.events {
			if evs != nil {
				totals.sse.Add(1)
			}
		}
		totals.streamed.Add(int64(streamed))
	}
}

// sendFixtureRequest sends the fixture's request (method, path, query,
// headers, body) to the proxy at base, for the cassette name, with a fake
// API key.
func sendFixtureRequest(t *testing.T, client *http.Client, base, name, apiKey string, x httprr.Exchange) *http.Response {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u := *x.Request.URL
	u.Scheme, u.Host, u.User = b.Scheme, b.Host, nil
	ctx, cancel := context.WithTimeout(t.Context(), conformanceRequestTimeout)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, x.Request.Method, u.String(), bytes.NewReader(x.Request.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range x.Request.Header {
		if k != "Content-Length" {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	req.Header.Set("X-Goog-Api-Key", apiKey)
	req.Header.Set(proxy.HeaderCassette, name)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", x.Request.Method, u.String(), err)
	}
	return resp
}

// checkFixtureResponse compares what the client got with the fixture's
// response: status, Content-Type and every body byte.
func checkFixtureResponse(t *testing.T, where string, resp *http.Response, body []byte, x httprr.Exchange) {
	t.Helper()
	want := x.Response
	if resp.StatusCode != want.Status {
		t.Errorf("%s: status %d, want %d (body %.300q)", where, resp.StatusCode, want.Status, body)
	}
	if got, w := resp.Header.Get("Content-Type"), want.Header.Get("Content-Type"); got != w {
		t.Errorf("%s: Content-Type %q, want %q", where, got, w)
	}
	if !bytes.Equal(body, want.Body) {
		t.Errorf("%s: body differs from the fixture: %s", where, firstByteDifference(body, want.Body))
	}
}

// firstByteDifference describes where got first departs from want.
func firstByteDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-20)
	return fmt.Sprintf("got %d bytes, want %d; first difference at byte %d: got %q, want %q",
		len(got), len(want), i, got[from:min(len(got), i+40)], want[from:min(len(want), i+40)])
}

// checkNoSecretInDir fails if the API key appears in any file below dir.
func checkNoSecretInDir(t *testing.T, dir, secret string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte(secret)); n != 0 {
			t.Errorf("%s holds the API key %d time(s)", path, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no cassette was written in %s", dir)
	}
}

// checkFixtureCassette checks that the cassette holds every exchange with
// the fixture's bytes, and SSE bodies as one event per "\r\n\r\n"-ended
// event.
func checkFixtureCassette(t *testing.T, dir, name string, xs []httprr.Exchange) {
	t.Helper()
	rel, err := cassettes.FileName(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cassettes.Load(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != len(xs) {
		t.Fatalf("cassette holds %d exchanges, want %d", len(c.Exchanges), len(xs))
	}
	// A cassette is ordered by conversation (session, invocation, step), not
	// by arrival: pair each fixture exchange with the recording of the same
	// request, first in first out, as replay does.
	byRequest := map[matcher.Fingerprint][]*cassettes.Exchange{}
	for _, x := range c.Exchanges {
		fp := matcher.Default().Fingerprint(&x.Request)
		byRequest[fp] = append(byRequest[fp], x)
	}
	for i, x := range xs {
		fp := matcher.Default().Fingerprint(&cassettes.Request{Method: x.Request.Method, Path: x.Request.URL.EscapedPath(),
			Query: cassettes.NewRedactor().Query(x.Request.URL.RawQuery), Body: x.Request.Body})
		if len(byRequest[fp]) == 0 {
			t.Errorf("cassette exchange %d: the cassette has no recording of this request", i+1)
			continue
		}
		got := byRequest[fp][0].Response
		byRequest[fp] = byRequest[fp][1:]
		if got.Status != x.Response.Status {
			t.Errorf("cassette exchange %d: status %d, want %d", i+1, got.Status, x.Response.Status)
		}
		want := x.Response.Events()
		if want == nil {
			if got.Streamed() || !bytes.Equal(got.Body, x.Response.Body) {
				t.Errorf("cassette exchange %d: body (streamed=%v) differs from the fixture: %s",
					i+1, got.Streamed(), firstByteDifference(got.Body, x.Response.Body))
			}
			continue
		}
		if len(got.Events) != len(want) || len(want) != bytes.Count(x.Response.Body, []byte("\r\n\r\n")) {
			t.Errorf("cassette exchange %d: %d SSE events, the fixture body has %d \\r\\n\\r\\n separators",
				i+1, len(got.Events), bytes.Count(x.Response.Body, []byte("\r\n\r\n")))
			continue
		}
		for j, ev := range got.Events {
			if !bytes.Equal(ev.Data, want[j]) {
				t.Errorf("cassette exchange %d, event %d: %s", i+1, j+1, firstByteDifference(ev.Data, want[j]))
			}
		}
	}
}

// readEventsInStep reads an SSE body one event at a time, telling the fake
// upstream after each event that it may send the next one. A proxy that
// held events back would leave the upstream waiting (conformanceEventWait).
func readEventsInStep(body io.Reader, events [][]byte, gate chan<- struct{}) ([]byte, error) {
	var all []byte
	for _, ev := range events {
		buf := make([]byte, len(ev))
		n, err := io.ReadFull(body, buf)
		all = append(all, buf[:n]...)
		if err != nil {
			return all, err
		}
		gate <- struct{}{}
	}
	rest, err := io.ReadAll(body)
	return append(all, rest...), err
}

// fixtureUpstream serves one fixture's exchanges as the Gemini API did.
type fixtureUpstream struct {
	*httptest.Server
	xs     []httprr.Exchange
	apiKey string
	// events holds the SSE events of each exchange (nil when not SSE);
	// gates[i] receives one value per event the client has read.
	events [][][]byte
	gates  []chan struct{}
	// timedOut is set once the upstream gave up waiting for the client.
	timedOut atomic.Bool

	mu     sync.Mutex
	served []bool
}

func newFixtureUpstream(t *testing.T, xs []httprr.Exchange, apiKey string) *fixtureUpstream {
	u := &fixtureUpstream{xs: xs, apiKey: apiKey, served: make([]bool, len(xs)),
		events: make([][][]byte, len(xs)), gates: make([]chan struct{}, len(xs))}
	for i, x := range xs {
		if evs := x.Response.Events(); evs != nil {
			u.events[i] = evs
			u.gates[i] = make(chan struct{}, len(evs))
		}
	}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.serve(t, w, r)
	}))
	return u
}

// claim finds the first unserved exchange whose request matches r exactly
// (method, path, query, body), so identical requests get their answers in
// recorded order.
func (u *fixtureUpstream) claim(r *http.Request, body []byte) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, x := range u.xs {
		want := x.Request
		if !u.served[i] && r.Method == want.Method && r.URL.EscapedPath() == want.URL.EscapedPath() &&
			r.URL.RawQuery == want.URL.RawQuery && bytes.Equal(body, want.Body) {
			u.served[i] = true
			return i
		}
	}
	return -1
}

func (u *fixtureUpstream) serve(t *testing.T, w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("upstream: reading the request body: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	i := u.claim(r, body)
	if i < 0 {
		t.Errorf("upstream: no unserved fixture request matches %s %s (%d-byte body)", r.Method, r.URL, len(body))
		http.Error(w, "no fixture matches", http.StatusNotImplemented)
		return
	}
	if got := r.Header.Get("X-Goog-Api-Key"); got != u.apiKey {
		t.Errorf("upstream, exchange %d: the proxy forwarded X-Goog-Api-Key %q, not the client's key", i+1, got)
	}
	if got := r.Header.Get(proxy.HeaderCassette); got != "" {
		t.Errorf("upstream, exchange %d: the proxy forwarded its own %s header", i+1, proxy.HeaderCassette)
	}
	want := u.xs[i].Response
	h := w.Header()
	for k, vs := range want.Header {
		switch k {
		case "Connection", "Content-Length", "Transfer-Encoding":
			continue
		}
		h[k] = append([]string(nil), vs...)
	}
	w.WriteHeader(want.Status)
	events := u.events[i]
	if events == nil {
		w.Write(want.Body)
		return
	}
	flusher := w.(http.Flusher)
	for j, ev := range events {
		w.Write(ev)
		flusher.Flush()
		if j == len(events)-1 || u.timedOut.Load() {
			continue
		}
		select {
		case <-u.gates[i]:
		case <-r.Context().Done():
			return
		case <-time.After(conformanceEventWait):
			u.timedOut.Store(true)
			t.Errorf("upstream, exchange %d: event %d of %d did not reach the client within %v of being flushed: the proxy holds SSE events back",
				i+1, j+1, len(events), conformanceEventWait)
		}
	}
}

// checkAllServed fails for each fixture exchange the proxy never asked for.
func (u *fixtureUpstream) checkAllServed(t *testing.T) {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, ok := range u.served {
		if !ok {
			t.Errorf("upstream: exchange %d (%s %s) was never requested", i+1, u.xs[i].Request.Method, u.xs[i].Request.URL)
		}
	}
}

// offlineTransport fails the test if the proxy ever sends a request.
type offlineTransport struct{ t *testing.T }

func (o offlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	o.t.Errorf("replay contacted the upstream: %s %s", r.Method, r.URL)
	return nil, fmt.Errorf("replay must not contact the upstream")
}
