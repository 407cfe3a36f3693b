package proxy_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestRequestRefusedForALinkFailsTheRun: a request refused because its
// cassette or journal is a link was recorded nowhere, so the run fails
// as an unwritable cassette does (cassettes.ErrWrite), naming the link,
// in every mode that writes.
func TestRequestRefusedForALinkFailsTheRun(t *testing.T) {
	for _, tc := range []struct {
		mode         proxy.Mode
		link, target string
	}{
		{proxy.ModeRecord, "c.yaml", "../outside/v.yaml"},
		{proxy.ModeRecordOnce, "c.yaml", "../outside/v.yaml"},
		{proxy.ModeRecordRefresh, "c.yaml", "../outside/v.yaml"},
		{proxy.ModeRecordNewEpisodes, "c.yaml", "../outside/v.yaml"},
		{proxy.ModeRecord, ".c.yaml.journal", "/dev/zero"},
	} {
		t.Run(string(tc.mode)+" "+tc.link, func(t *testing.T) {
			up, n := countingUpstream()
			defer up.Close()
			root := t.TempDir()
			dir := filepath.Join(root, "cas")
			os.MkdirAll(dir, 0o755)
			os.MkdirAll(filepath.Join(root, "outside"), 0o755)
			link := filepath.Join(dir, tc.link)
			if err := os.Symlink(tc.target, link); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			rec := startProxy(t, proxy.Config{Mode: tc.mode, Dir: dir, Upstream: mustURL(t, up.URL)})
			if code, b := askCassette(t, rec.URL, "c", "q"); code != http.StatusBadRequest {
				t.Fatalf("%d %s", code, b)
			}
			rec.stop(t)
			err := rec.Failure()
			if !errors.Is(err, cassettes.ErrWrite) || !errors.Is(err, proxy.ErrRunFailed) || !strings.Contains(err.Error(), link) {
				t.Errorf("Failure() = %v: want a write failure naming %s", err, link)
			}
			if n.Load() != 0 {
				t.Errorf("%d request(s) forwarded", n.Load())
			}
		})
	}
}
