package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
)

// underFDLimit runs adkproxy with at most fds open descriptors (the shell's
// ulimit -n), serving until SIGINT; it returns the address, its stderr so
// far, and a function that stops it and returns its exit status and stderr.
func underFDLimit(t *testing.T, fds int, args ...string) (addr string, stderr *syncBuffer, stop func() (int, string)) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	script := fmt.Sprintf(`ulimit -n %d && exec "$@"`, fds)
	sh := append([]string{"-c", script, "sh", adkproxyBin}, append(args, "--listen", "127.0.0.1:0", "--addr-file", addrFile)...)
	cmd := exec.Command("sh", sh...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	stderr = &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	addr = waitForFile(t, addrFile)
	return addr, stderr, func() (int, string) {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
}

// TestRecordingManyCassettesUnderLowDescriptorLimit: journals are closed
// between exchanges, so recording into many more cassettes than there are
// descriptors journals every exchange and writes every cassette.
func TestRecordingManyCassettesUnderLowDescriptorLimit(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := t.TempDir()
	addr, _, stop := underFDLimit(t, 48, "record", "--cassettes", dir, "--upstream", up.URL)
	const cassettes = 120
	client := &http.Client{Timeout: time.Minute}
	for i := range cassettes {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1beta/models/gemini-2.5-flash:generateContent",
			strings.NewReader(fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":"question %d"}]}]}`, i)))
		req.Header.Set("X-Adkproxy-Cassette", fmt.Sprintf("c%03d", i))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	code, stderr := stop()
	if code != 0 || strings.Contains(stderr, "kept in memory only") || strings.Contains(stderr, "too many open files") {
		t.Fatalf("exit %d; want every exchange journalled:\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "c*.yaml"))
	if len(files) != cassettes {
		t.Fatalf("%d cassettes written, want %d", len(files), cassettes)
	}
}

// TestAcceptRecoversAfterRunningOutOfDescriptors: idle clients use up the
// descriptors; the failure to accept more is logged at warn level, and
// once they leave, new clients are served again.
func TestAcceptRecoversAfterRunningOutOfDescriptors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	addr, stderr, stop := underFDLimit(t, 32, "replay", "--cassettes", dir, "--log-level", "warn")
	var idle []net.Conn
	for range 60 {
		c, err := net.Dial("tcp", addr) // the backlog takes them even when accept cannot
		if err != nil {
			break
		}
		idle = append(idle, c)
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), "too many open files"); {
		if time.Now().After(deadline) {
			t.Fatalf("running out of descriptors was never logged:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, c := range idle {
		c.Close()
	}
	client := &http.Client{Timeout: 5 * time.Second}
	var served bool
	for deadline := time.Now().Add(time.Minute); !served && time.Now().Before(deadline); {
		resp, err := client.Get("http://" + addr + "/v1beta/models")
		if err == nil {
			resp.Body.Close()
			served = resp.StatusCode != 0
		}
	}
	code, log := stop()
	if !served {
		t.Fatalf("no client was served after the idle ones left (exit %d):\n%s", code, log)
	}
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "too many open files") {
		t.Fatalf("running out of descriptors was not logged at warn level:\n%s", log)
	}
}

// TestLimitFlagsRefuseNonsense: each limit is a flag and an ADKPROXY_
// variable, and a value that is not positive is a usage error naming it.
func TestLimitFlagsRefuseNonsense(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--max-conns", "0"}, "--max-conns"},
		{nil, []string{"--idle-timeout", "-1s"}, "--idle-timeout"},
		{[]string{"ADKPROXY_READ_TIMEOUT=0s"}, nil, "--read-timeout"},
		{[]string{"ADKPROXY_WRITE_TIMEOUT=0s"}, nil, "--write-timeout"},
	} {
		r := adkproxy(t, c.env, append([]string{"replay", "--cassettes", dir}, append(c.args, "--", "true")...)...)
		if r.code != 64 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v %v: exit %d, stderr %s; want 64 naming %s", c.env, c.args, r.code, r.stderr, c.want)
		}
	}
	r := adkproxy(t, nil, "record", "--cassettes", dir, "--upstream-header-timeout", "0s", "--", "true")
	if r.code != 64 || !strings.Contains(r.stderr, "--upstream-header-timeout") {
		t.Errorf("--upstream-header-timeout 0s: exit %d, stderr %s", r.code, r.stderr)
	}
}

// syncBuffer is a bytes.Buffer a test can read while a process writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
