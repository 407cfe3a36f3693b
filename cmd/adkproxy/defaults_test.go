package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/internal/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testutil"
)

// TestListensOnLoopbackAndWarnsOtherwise: a wrapped command is pointed at a
// loopback address; asking for any other address works but is warned about.
func TestListensOnLoopbackAndWarnsOtherwise(t *testing.T) {
	dir := t.TempDir()
	r := adkproxy(t, nil, "replay", "--cassettes", dir, "--", "sh", "-c", `printf %s "$ADKPROXY_URL"`)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "http://127.0.0.1:") || strings.Contains(r.stderr, "NON-LOOPBACK") {
		t.Fatalf("default address: exit %d, url %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := adkproxyCmd(t, nil, "replay", "--cassettes", dir, "--listen", "0.0.0.0:0", "--addr-file", addrFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, addrFile)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if !strings.Contains(stderr.String(), "LISTENING ON A NON-LOOPBACK ADDRESS") {
		t.Fatalf("no warning for 0.0.0.0:\n%s", stderr.String())
	}
}

// TestCleanRunLeavesOnlyCassettes: after a crash-free recording the folder
// holds the cassettes and nothing else: no temporary file, no journal.
func TestCleanRunLeavesOnlyCassettes(t *testing.T) {
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
