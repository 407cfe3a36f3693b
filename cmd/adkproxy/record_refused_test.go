package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestRecordOverAnUnreadableJournalExits65: a leftover journal record
// cannot read (over the size cap, a FIFO) is neither read nor removed, in
// the default mode too: the run exits 65 naming it, as `ls` does.
func TestRecordOverAnUnreadableJournalExits65(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	for name, make := range map[string]func(jp string) error{
		"too large": func(jp string) error {
			if err := os.WriteFile(jp, nil, 0o644); err != nil {
				return err
			}
			return os.Truncate(jp, 3<<30) // sparse
		},
		"fifo": func(jp string) error { return syscall.Mkfifo(jp, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			jp := filepath.Join(dir, ".default.yaml.journal")
			if err := make(jp); err != nil {
				t.Skipf("%v", err)
			}
			before, _ := os.Lstat(jp)
			r := adkproxy(t, []string{"QUESTION=hi"}, append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
			if r.code != exitDataErr || !strings.Contains(r.stderr, jp) {
				t.Errorf("exit %d, want %d naming %s:\n%s", r.code, exitDataErr, jp, r.stderr)
			}
			if after, err := os.Lstat(jp); err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
				t.Errorf("the journal was removed or changed: %v", err)
			}
		})
	}
}
