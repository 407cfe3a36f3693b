//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestTabAfterDashDashRunsNothing presses Tab in a real interactive bash
// after "--" on record and replay lines: the wrapped command never runs,
// no cassette is touched, no port is bound, the upstream hears nothing.
func TestTabAfterDashDashRunsNothing(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	if err := os.Symlink(adkproxyBin, filepath.Join(bin, "adkproxy")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent", "helper-tool"} {
		os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho AGENT-RAN\ntouch \"$(dirname \"$0\")/agent.ran\"\n"), 0o755)
	}
	cas := filepath.Join(dir, "cas")
	os.Mkdir(cas, 0o755)
	os.WriteFile(filepath.Join(cas, "default.yaml"), []byte("version: 2\n"), 0o644)
	before := snapshot(t, cas)
	var heard atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { heard.Add(1) }))
	defer up.Close()

	sh := exec.Command(bash, "--norc", "--noprofile", "-i")
	sh.Dir = dir
	sh.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "PS1=$ ", "TERM=dumb", "INPUTRC=/dev/null", "ADKPROXY_CA_DIR=" + testCADir}
	term := testutil.StartInTerminal(t, sh)
	screen := readScreen(term)
	// Keys are typed only at a fresh prompt: readline reads them one by
	// one only once it shows it.
	run := func(keys string) {
		t.Helper()
		from := len(screen.String())
		fmt.Fprint(term, keys)
		screen.waitForPrompt(t, from)
	}
	typeLine := func(keys, done string) {
		t.Helper()
		run(keys + "\x15echo " + done + "\n") // Ctrl-U drops the line before running anything
		screen.waitFor(t, "\n"+done+"\r")
	}
	screen.waitForPrompt(t, 0)
	run("source <(adkproxy completion bash)\n")
	typeLine("adkproxy repl\t", "sourced")
	if !strings.Contains(screen.String(), "adkproxy replay ") {
		t.Fatalf("Tab did not complete 'repl' to 'replay': completion is not loaded\n%s", screen)
	}
	for i, line := range []string{
		"adkproxy record --cassettes cas --upstream " + up.URL + " --addr-file af -- ./agent --verbose \t\t",
		"adkproxy record --cassettes cas --upstream " + up.URL + " --addr-file af -- ./agent \t\t",
		"adkproxy replay --cassettes cas --addr-file af -- ./agent \t\t",
		"adkproxy replay --cassettes cas --addr-file af -- ./helper-t\t",
		"adkproxy replay --cassettes cas --addr-file af -- ./agent --\t\t",
		"adkproxy record --cassettes cas --addr-file af -- adkp\t",
		"adkproxy replay --cassettes cas --addr-file af \t\t", // before any "--": flags only, nothing started
	} {
		typeLine(line, fmt.Sprintf("line-%d-done", i))
	}
	fmt.Fprintf(term, "exit\n")
	waited := make(chan error, 1)
	go func() { waited <- sh.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		sh.Process.Kill()
		t.Fatalf("bash did not exit\n%s", screen)
	}

	if strings.Contains(screen.String(), "AGENT-RAN") {
		t.Errorf("the wrapped command's output is on the screen:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(dir, "agent.ran")); err == nil {
		t.Errorf("Tab ran the wrapped command")
	}
	if _, err := os.Stat(filepath.Join(dir, "af")); err == nil {
		t.Errorf("Tab started a proxy (it wrote its --addr-file)")
	}
	if n := heard.Load(); n != 0 {
		t.Errorf("Tab sent %d request(s) upstream", n)
	}
	if after := snapshot(t, cas); after != before {
		t.Errorf("Tab changed the cassette folder:\nbefore %s\nafter  %s", before, after)
	}
	if !strings.Contains(screen.String(), "./helper-tool") || !strings.Contains(screen.String(), "-- adkproxy ") {
		t.Errorf("Tab after -- did not complete the wrapped command's name:\n%s", screen)
	}
}

// screen is what a terminal shows, read as it comes.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func readScreen(term io.Reader) *screen {
	s := &screen{}
	go func() {
		chunk := make([]byte, 4096)
		for {
			n, err := term.Read(chunk)
			s.mu.Lock()
			s.buf.Write(chunk[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *screen) waitFor(t *testing.T, text string) {
	t.Helper()
	s.wait(t, text, func(screen string) bool { return strings.Contains(screen, text) })
}

// waitForPrompt waits until the screen, past its first from bytes, ends
// with a new line holding bash's prompt.
func (s *screen) waitForPrompt(t *testing.T, from int) {
	t.Helper()
	s.wait(t, "the prompt", func(screen string) bool {
		return strings.HasSuffix(screen[from:], "$ ") && (from == 0 || strings.Contains(screen[from:], "\n"))
	})
}

func (s *screen) wait(t *testing.T, what string, done func(string) bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if done(s.String()) {
			return
		}
	}
	t.Fatalf("%s never appeared on the terminal:\n%s", what, s)
}

// One mismatch is said once: one block in the summary with the request's
// place, the differing field and the hint, the recordings the agent then
// never asked for folded into it, and on a terminal no logfmt lines
// beside adkproxy's own.
func TestOneFailureSaidOnce(t *testing.T) {
	t.Parallel()
	dir := recordScenario(t, "golden", weatherScenario())
	changed := weatherScenario()
	changed.ToolResults["get_weather"]["temp_c"] = 19
	doc, _ := json.Marshal(changed)
	const diffLine = "contents[2].parts[get_weather].functionResponse.response.temp_c: recorded 18, got 19"

	// Into a pipe (CI): the agent prints the error it got, adkproxy its summary.
	r := adkproxy(t, []string{"SCENARIO=" + string(doc)}, append([]string{"replay", "--cassettes", dir}, self("scenario")...)...)
	if n := strings.Count(r.stderr, diffLine); r.code == 0 || n != 2 { // the agent's error and adkproxy's block
		t.Errorf("exit %d, the field diff %d times, want 2:\n%s", r.code, n, r.stderr)
	}
	summary := r.stderr[strings.Index(r.stderr, "adkproxy: replayed"):]
	if n := len(regexp.MustCompile(`(?m)^  \S`).FindAllString(summary, -1)); n != 1 {
		t.Errorf("%d blocks in the summary, want 1:\n%s", n, summary)
	}
	for _, want := range []string{"session 1, invocation 1", "step 1", diffLine, "Re-record with", "after it the agent stopped: 2 recording(s) never requested (session 1, invocation 2, step 0, agent weather_agent; session 1, invocation 2, step 1"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the block lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(r.stderr, "level=WARN") {
		t.Errorf("log lines repeat the summary:\n%s", r.stderr)
	}

	// On a terminal: every line adkproxy writes is an adkproxy: line or indented under one.
	cmd := exec.Command(adkproxyBin, append([]string{"replay", "--cassettes", dir, "--log-level", "debug"}, self("scenario")...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TERM=xterm", "NO_COLOR=1", "ADKPROXY_CA_DIR=" + testCADir, "SCENARIO=" + string(doc)}
	screen := readScreen(testutil.StartInTerminal(t, cmd))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("replay did not end:\n%s", screen)
	}
	time.Sleep(100 * time.Millisecond) // the last bytes from the terminal
	out := strings.ReplaceAll(screen.String(), "\r\n", "\n")
	inAgentError := false
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "scenario: "): // the agent's own error, a few lines
			inAgentError = true
		case strings.HasPrefix(line, "adkproxy: "):
			inAgentError = false
		case strings.HasPrefix(line, "  ") && !inAgentError, inAgentError:
		default:
			t.Errorf("a line in another style on the terminal: %q\n%s", line, out)
		}
		if strings.Contains(line, "time=") || strings.Contains(line, "level=") {
			t.Errorf("a logfmt line on the terminal: %q", line)
		}
	}
	if n := strings.Count(out, diffLine); n != 2 {
		t.Errorf("the field diff %d times on the terminal, want 2:\n%s", n, out)
	}
}
