package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/adkproxy/adkproxy/proxy"
)

// TestReplayKeepsNoChunksOfUnrecordedUploads: upload chunks to URLs the
// cassette never recorded are misses, and replay keeps none of their
// bytes: before, each was kept for good (60 × 32 MiB took 2.5 GB).
func TestReplayKeepsNoChunksOfUnrecordedUploads(t *testing.T) {
	dir := recordAgent(t)
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	for i := range 6 {
		req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/upload/v1beta/files?upload_id=u%d&upload_protocol=resumable", rep.URL, i), bytes.NewReader(chunk))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Goog-Upload-Command", "upload")
		req.Header.Set("X-Goog-Upload-Offset", "0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("chunk %d of an unrecorded upload: %d, want an error", i, resp.StatusCode)
		}
	}
	if n := proxy.UploadsHeld(rep.Server); n != 0 {
		t.Errorf("replay keeps %d bytes of uploads it holds no recording for, want 0", n)
	}
}
