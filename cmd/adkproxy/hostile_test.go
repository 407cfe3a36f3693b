package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
)

// TestJournalSymlinkDoesNotOverwriteItsTarget is issue 11's reproduction:
// `ln -s ../outside/victim.txt cas/.name.yaml.journal`, then record the
// cassette "name". The victim stays as it was, nothing is forwarded for a
// cassette that cannot be written safely, and the run says what it refused.
func TestJournalSymlinkDoesNotOverwriteItsTarget(t *testing.T) {
	t.Parallel()
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	root := t.TempDir()
	cas, outside := filepath.Join(root, "cas"), filepath.Join(root, "outside")
	os.MkdirAll(cas, 0o755)
	os.MkdirAll(outside, 0o755)
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	if err := os.Symlink("../outside/victim.txt", filepath.Join(cas, ".name.yaml.journal")); err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, []string{"QUESTION=hi"}, append([]string{"record", "--cassettes", cas, "--cassette", "name", "--upstream", up.URL}, self("ask")...)...)
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Fatalf("victim.txt was overwritten through the journal link: %q\nstderr %s", got, r.stderr)
	}
	if !strings.Contains(r.stderr, "symbolic link") || !strings.Contains(r.stderr, ".name.yaml.journal") {
		t.Errorf("the run does not say what it refused:\n%s", r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "400 ") || !strings.Contains(r.stdout, "symbolic link") {
		t.Errorf("the client was not told: %s", r.stdout)
	}
	if n := len(upstream.Requests()); n != 0 {
		t.Errorf("%d request(s) forwarded for a cassette that cannot be written", n)
	}
}

// TestReplayRefusesAFolderWithADeviceCassette is issue 39 item 13: `replay
// --cassettes DIR -- true` where DIR holds only a link to /dev/zero exits
// 65 naming the file, as `ls DIR` does, instead of 0 naming nothing.
func TestReplayRefusesAFolderWithADeviceCassette(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, args := range [][]string{{"replay", "--cassettes", dir, "--", "true"}, {"ls", dir}} {
		r := adkproxy(t, nil, args...)
		if r.code != 65 || !strings.Contains(r.stderr, zero) {
			t.Errorf("%v: exit %d, want 65 naming %s\n%s", args, r.code, zero, r.stderr)
		}
	}
}
