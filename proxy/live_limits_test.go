package proxy_test

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestLiveMessageOverMaxBodyCloses1009: a Live message larger than
// --max-body is never read whole: the connection closes with 1009, the
// refusal is counted, and the recording keeps the frames before it and
// not the oversized one; replay refuses it the same way.
func TestLiveMessageOverMaxBodyCloses1009(t *testing.T) {
	const limit = 64 << 10
	dir := testutil.OutDir(t)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL), MaxBody: limit})
	huge := `{"clientContent":{"turns":[{"role":"user","parts":[{"text":"` + strings.Repeat("x", 4*limit) + `"}]}]}}`

	c := dialLive(t, rec.URL, jsLivePath+"?key="+testutil.SecretQueryKey, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.WriteMessage(websocket.TextMessage, []byte(huge)) // the proxy may close before all of it is written
	expectClose(t, c, websocket.CloseMessageTooBig)
	rec.stop(t)
	if st := rec.Stats(); st.Failed != 1 {
		t.Errorf("record stats %+v: want the oversized message counted as refused", st)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 1 {
		t.Fatalf("cassettes %v, want one", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Size() > limit {
		t.Errorf("the cassette is %d bytes: the oversized message was kept", fi.Size())
	}
	c1, err := cassettes.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if x := c1.Exchanges[0]; x.Live == nil || len(x.Live.Frames) < 2 || !strings.Contains(string(x.Live.Frames[0].Data), "setup") {
		t.Fatalf("the connection's frames before the oversized message were not kept: %+v", x.Live)
	}

	// Replaying a recording that goes on after the setup, the client's
	// oversized message where a question was recorded is refused the same way.
	full := testutil.OutDir(t)
	recordRawSession(t, full)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: full, MaxBody: limit})
	c = dialLive(t, rep.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.WriteMessage(websocket.TextMessage, []byte(huge)) // the proxy may close before all of it is written
	expectClose(t, c, websocket.CloseMessageTooBig)
	rep.stop(t)
	if st := rep.Stats(); st.Failed != 1 {
		t.Errorf("replay stats %+v: want the oversized message counted as refused", st)
	}
}

// expectClose reads until the connection ends and wants close code code.
func expectClose(t *testing.T, c *liveConn, code int) {
	t.Helper()
	for {
		_, data, err := c.next()
		if err == nil {
			continue // answers the upstream sent before it saw the close
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != code {
			t.Fatalf("the connection ended with %v (last frame %.80q), want close code %d", err, data, code)
		}
		return
	}
}

// TestLiveReplayScrubsClientFrames: recorded with a --redact value in a
// client frame (stored as REDACTED), the same frame replays; a frame that
// differs is reported without the value in the close reason, log or report.
func TestLiveReplayScrubsClientFrames(t *testing.T) {
	const secret = "ACME-SECRET-42"
	dir := testutil.OutDir(t)
	question := strings.Replace(questionFrame, "Paris?", "Paris? My id is "+secret, 1)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL), Redactor: cassettes.NewRedactor(secret)})
	c := dialLive(t, rec.URL, jsLivePath+"?key="+testutil.SecretQueryKey, nil)
	recorded := rawSession(c, setupFrame, question, toolFrame)
	c.Close()
	rec.stop(t)
	if n := testutil.CountInDir(t, dir, secret); n != 0 {
		t.Fatalf("the --redact value is in the cassette %d times", n)
	}

	logs := &lockedLog{}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Redactor: cassettes.NewRedactor(secret), Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	c = dialLive(t, rep.URL, jsLivePath, nil)
	if got := rawSession(c, setupFrame, question, toolFrame); len(got) != len(recorded) {
		t.Errorf("replayed %d frames, recorded %d", len(got), len(recorded))
	}
	c.Close()
	rep.stop(t)
	if st := rep.Stats(); st.Replayed != 1 || st.Mismatched != 0 {
		t.Errorf("replay stats %+v: want the same frames replayed, none mismatched", st)
	}

	rep = startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Redactor: cassettes.NewRedactor(secret), Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	c = dialLive(t, rep.URL, jsLivePath, nil)
	c.send(setupFrame)
	c.turn("setupComplete")
	c.send(strings.Replace(question, "Paris", "Berlin", 1))
	_, _, err := c.next()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation || strings.Contains(ce.Text, secret) {
		t.Errorf("a changed frame: %v, want 1008 without the secret", err)
	}
	rep.stop(t)
	if st := rep.Stats(); st.Mismatched != 1 {
		t.Errorf("replay stats %+v: want the changed frame mismatched", st)
	}
	for _, m := range rep.Misses() {
		if strings.Contains(m.Message, secret) || strings.Contains(fmt.Sprint(m.Diffs), secret) {
			t.Errorf("the report shows the --redact value: %s", m.Message)
		}
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the log shows the --redact value")
	}
}

// TestSilentTunnelsAndLiveSocketsAreClosed: a CONNECT tunnel (before or
// after its TLS handshake) and a Live socket that stay silent are closed
// after --idle-timeout, so they cannot hold the connection slots for good.
func TestSilentTunnelsAndLiveSocketsAreClosed(t *testing.T) {
	const failsafe = 20 * time.Second
	local := newCA(t)
	dir := testutil.OutDir(t)
	up := testutil.StartCounting(t, &fakegemini.Handler{}, nil)
	_, hs := serveForward(t, proxy.Config{
		Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL),
		Forward: &proxy.ForwardProxy{Leaf: local.Leaf},
		Limits:  proxy.Limits{IdleTimeout: 300 * time.Millisecond},
	})
	addr := strings.TrimPrefix(hs.URL, "http://")
	closedBy := func(what string, c net.Conn, r *bufio.Reader) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(failsafe))
		_, err := r.ReadByte()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s: still open after %s of silence (idle timeout 300ms)", what, failsafe)
		}
	}
	tunnel := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "CONNECT weather.example.test:443 HTTP/1.1\r\nHost: weather.example.test:443\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		return c, br
	}
	c, br := tunnel()
	closedBy("a silent CONNECT tunnel", c, br)

	c, _ = tunnel()
	tc := tls.Client(c, &tls.Config{ServerName: "weather.example.test", RootCAs: poolOf(local)})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	closedBy("a silent tunnel after its TLS handshake", tc, bufio.NewReader(tc))

	live := dialLive(t, hs.URL, jsLivePath+"?key="+testutil.SecretQueryKey, nil)
	live.SetReadDeadline(time.Now().Add(failsafe))
	_, _, err := live.ReadMessage()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("a silent Live socket: still open after %s", failsafe)
	}
}

// lockedLog collects a server's log lines, written from many goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
