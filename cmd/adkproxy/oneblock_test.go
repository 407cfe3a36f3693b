//go:build linux

package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

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
