package proxy_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestClientDeadlineIsRecordedAsSeen: the upstream sends one event and then
// stalls; the client gives up. The cassette holds what the client saw (the
// first event, then a cut connection), and replay shows the client exactly
// that, even though the stalled upstream is gone.
func TestClientDeadlineIsRecordedAsSeen(t *testing.T) {
	first := "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"}}]}\r\n\r\n"
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select { // stall until the test ends or the proxy hangs up
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer up.Close()
	defer close(release)
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, up.URL)})
	gotRec, errRec := readUntilGivingUp(t, rec.URL, first)
	rec.stop(t)
	if gotRec != first || errRec == nil {
		t.Fatalf("recording client got %q, err %v", gotRec, errRec)
	}
	c, err := cassettes.Load(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	resp := c.Exchanges[0].Response
	if len(resp.Events) != 1 || string(resp.Events[0].Data) != first || resp.End != cassettes.EndReset {
		t.Fatalf("stored %d events, end %q; want the one event the client saw and a reset", len(resp.Events), resp.End)
	}

	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	req, _ := http.NewRequest("POST", rep.URL+streamPath, strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	if string(b) != first || err == nil {
		t.Fatalf("replay gave %q, err %v; want the first event and a broken stream", b, err)
	}
}

// readUntilGivingUp reads the stream until the first event has arrived,
// then gives up as a client with a deadline would.
func readUntilGivingUp(t *testing.T, base, want string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", base+streamPath, strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, len(want))
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel() // the deadline passes
	_, err = io.ReadAll(resp.Body)
	if err == nil {
		err = errors.New("stream ended cleanly")
	}
	return string(buf), err
}
