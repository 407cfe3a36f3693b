package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
)

// TestOneRecorderPerCassettesFolder runs real processes: while one
// recorder serves a folder, a second exits at once with status 75 naming
// the first (PID and since when), without running its command; replay is
// not locked out; and once the first is killed, the next recorder takes
// its stale lock over with a warning.
func TestOneRecorderPerCassettesFolder(t *testing.T) {
	t.Parallel()
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	dir := filepath.Join(t.TempDir(), "cas")
	addrFile := filepath.Join(t.TempDir(), "addr")
	first := adkproxyCmd(t, nil, "record", "--cassettes", dir, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, addrFile)
	pid := strconv.Itoa(first.Process.Pid)

	second := adkproxy(t, []string{"QUESTION=hi"}, append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
	if second.code != 75 || !strings.Contains(second.stderr, "PID "+pid) || !strings.Contains(second.stderr, "since") {
		t.Errorf("second recorder: exit %d, want 75 naming PID %s\nstderr %s", second.code, pid, second.stderr)
	}
	if second.stdout != "" || len(upstream.Requests()) != 0 {
		t.Errorf("the second recorder ran its command: %q, %d upstream request(s)", second.stdout, len(upstream.Requests()))
	}

	if r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, self("print-key")...)...); r.code != 0 {
		t.Errorf("replay beside a recorder: exit %d\n%s", r.code, r.stderr)
	}

	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	third := adkproxy(t, []string{"QUESTION=hi"}, append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
	if third.code != 0 || !strings.Contains(third.stderr, "no longer running") || !strings.Contains(third.stderr, pid) {
		t.Errorf("after the holder was killed: exit %d\nstderr %s", third.code, third.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "default.yaml")); err != nil {
		t.Errorf("the third recorder did not record: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*lock*")); len(leftovers) != 0 {
		t.Errorf("lock file left after a clean exit: %v", leftovers)
	}
}
