package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestOddBodiesRecordAndReplayExactly: bodies that are not JSON, are cut
// short, or are not even UTF-8 are forwarded, stored without loss and
// matched byte for byte; only well-formed JSON is matched structurally.
func TestOddBodiesRecordAndReplayExactly(t *testing.T) {
	bodies := [][]byte{
		[]byte(`{"contents":[{"role":"user","parts":[{"text":"cut`), // malformed JSON
		{0xff, 0xfe, 'h', 'i', 0x00, 0x80},                          // not UTF-8
		[]byte("\n\tleading newline and tab, then text"),
		{},
	}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(append([]byte{0xc3, 0x28}, b...)) // an invalid UTF-8 answer too
	}))
	defer echo.Close()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, echo.URL)})
	for _, b := range bodies {
		body(t, postBytes(t, rec.URL, b))
	}
	rec.stop(t)
	echo.Close()
	if _, err := cassettes.Load(filepath.Join(dir, "default.yaml")); err != nil {
		raw, _ := os.ReadFile(filepath.Join(dir, "default.yaml"))
		t.Fatalf("cassette does not load: %v\n%s", err, raw)
	}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	for _, b := range bodies {
		resp := postBytes(t, rep.URL, b)
		if got := []byte(body(t, resp)); resp.StatusCode != 200 || !bytes.Equal(got, append([]byte{0xc3, 0x28}, b...)) {
			t.Errorf("body %q replayed as %d %q", b, resp.StatusCode, got)
		}
	}
	if resp := postBytes(t, rep.URL, []byte{0xff, 0xfe, 'h', 'i', 0x00, 0x81}); resp.StatusCode != 400 {
		t.Errorf("a different byte matched: %d", resp.StatusCode)
	}
}

func postBytes(t *testing.T, base string, b []byte) *http.Response {
	t.Helper()
	resp, err := http.Post(base+generatePath, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
