package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
)

// TestRecordRefusedForALinkExits73: a request refused because its
// cassette (or its journal) is a link was not recorded, so the run fails
// as a save that could not be written does (73), in every mode that
// writes, naming the file; the client's own status 0 does not hide it.
func TestRecordRefusedForALinkExits73(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	for _, tc := range []struct {
		name, mode, link, target string
	}{
		{"cassette link, default mode", "", "default.yaml", "../outside/v.yaml"},
		{"cassette link, once", "once", "default.yaml", "../outside/v.yaml"},
		{"cassette link, refresh", "refresh", "default.yaml", "../outside/v.yaml"},
		{"journal link to /dev/zero", "", ".default.yaml.journal", "/dev/zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			cas, outside := filepath.Join(root, "r"), filepath.Join(root, "outside")
			os.MkdirAll(cas, 0o755)
			os.MkdirAll(outside, 0o755)
			if err := os.Symlink(tc.target, filepath.Join(cas, tc.link)); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			args := []string{"record", "--cassettes", cas, "--upstream", up.URL}
			if tc.mode != "" {
				args = append(args, "--mode", tc.mode)
			}
			r := adkproxy(t, []string{"QUESTION=hi"}, append(args, self("ask")...)...)
			if !strings.HasPrefix(r.stdout, "400 ") {
				t.Fatalf("the client was not refused: %s\n%s", r.stdout, r.stderr)
			}
			if r.code != exitCantWrite {
				t.Errorf("exit %d, want %d: a refused request was not recorded\n%s", r.code, exitCantWrite, r.stderr)
			}
			named := false
			for _, line := range strings.Split(r.stderr, "\n") {
				named = named || strings.Contains(line, "not recorded") && strings.Contains(line, filepath.Join(cas, tc.link))
			}
			if !strings.Contains(r.stderr, "1 request(s) refused") || !named {
				t.Errorf("the summary does not say that the request was not recorded, naming %s:\n%s", filepath.Join(cas, tc.link), r.stderr)
			}
		})
	}
}
