package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestListensOnLoopbackAndWarnsOtherwise: a wrapped command is pointed at a
// loopback address; asking for any other address works but is warned about,
// and so is the open forward proxy a recording listener also is.
func TestListensOnLoopbackAndWarnsOtherwise(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := adkproxy(t, nil, "replay", "--cassettes", dir, "--", "sh", "-c", `printf %s "$ADKPROXY_URL"`)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "http://127.0.0.1:") || strings.Contains(r.stderr, "NON-LOOPBACK") {
		t.Fatalf("default address: exit %d, url %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if stderr := exposed(t, "replay", "--cassettes", dir); !strings.Contains(stderr, "LISTENING ON A NON-LOOPBACK ADDRESS") || strings.Contains(stderr, "open forward proxy") {
		t.Fatalf("replay on 0.0.0.0: want the warning, without the forward proxy (replay dials nothing):\n%s", stderr)
	}
	if stderr := exposed(t, "record", "--cassettes", dir); !strings.Contains(stderr, "open forward proxy to any host") || !strings.Contains(stderr, "--no-forward-proxy") {
		t.Fatalf("record on 0.0.0.0: the warning does not say it is an open forward proxy:\n%s", stderr)
	}
	if stderr := exposed(t, "record", "--cassettes", dir, "--no-forward-proxy"); !strings.Contains(stderr, "LISTENING ON A NON-LOOPBACK ADDRESS") || strings.Contains(stderr, "open forward proxy") {
		t.Fatalf("record --no-forward-proxy on 0.0.0.0: want the warning, without the forward proxy:\n%s", stderr)
	}
}

// exposed runs the real binary with args on 0.0.0.0 until it listens, stops
// it, and returns what it wrote to stderr.
func exposed(t *testing.T, args ...string) string {
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := adkproxyCmd(t, nil, append(args, "--listen", "0.0.0.0:0", "--addr-file", addrFile)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, addrFile)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	return stderr.String()
}

// TestCleanRunLeavesOnlyCassettes: after a crash-free recording the folder
// holds the cassettes and nothing else: no temporary file, no journal.
func TestCleanRunLeavesOnlyCassettes(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := testutil.OutDir(t)
	for _, q := range []string{"one", "two"} {
		if r := adkproxy(t, []string{"QUESTION=" + q}, append([]string{"record", "--mode", "new-episodes", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	var files []string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	if len(files) != 1 || files[0] != "default.yaml" {
		t.Fatalf("folder holds %v, want only default.yaml", files)
	}
}
