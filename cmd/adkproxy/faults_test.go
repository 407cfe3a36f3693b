package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// buildWeather builds the demo agent (examples/weather, the official Go
// client) and returns its path.
func buildWeather(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "weather-agent")
	build := exec.Command("go", "build", "-o", bin, "../../examples/weather")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/weather: %v\n%s", err, out)
	}
	return bin
}

// TestReplayFaultWithTheExampleCassette: with the shipped cassette, a 429
// at the first model call passes the agent that retries once and fails,
// with 76, the one that does not (its harness ignoring the agent's
// failure: only the recordings left unused tell), naming the fault.
func TestReplayFaultWithTheExampleCassette(t *testing.T) {
	t.Parallel()
	weather := buildWeather(t)
	dir := "../../examples/weather/cassettes"

	r := adkproxy(t, []string{"WEATHER_RETRIES=1"}, "replay", "--cassettes", dir, "--fault", "call 1: 429", "--", weather)
	if r.code != 0 || !strings.Contains(r.stdout, "agent: It is 24°C in Tokyo, clear.") ||
		!strings.Contains(r.stderr, `fault "call 1: 429" injected at POST /v1beta/models/gemini-2.5-flash:generateContent (model call 1, cassette "default", session 1, invocation 1 ("What is the weather in Paris?"), step 0, agent agent): recovered`) {
		t.Errorf("retrying agent: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	report := filepath.Join(t.TempDir(), "report.json")
	r = adkproxy(t, nil, "replay", "--cassettes", dir, "--fault", "call 1: 429", "--report", report, "--", "sh", "-c", weather+" || echo agent gave up")
	if r.code != 76 || !strings.Contains(r.stdout, "agent gave up") || !strings.Contains(r.stderr, "Error 429") ||
		!strings.Contains(r.stderr, "the agent did not recover") || !strings.Contains(r.stderr, "4 recording(s) unused") ||
		strings.Contains(r.stderr, "no request reached adkproxy") {
		t.Errorf("agent without retries: exit %d (want 76)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), `"fault": "call 1: 429"`) || !strings.Contains(string(b), `"recovered": false`) {
		t.Errorf("--report: %s, %v", b, err)
	}
}

// TestFaultFlagsAndFile: --faults reads a YAML list (an unquoted spec
// too); a bad spec or file exits 64 naming it.
func TestFaultFlagsAndFile(t *testing.T) {
	t.Parallel()
	weather := buildWeather(t)
	dir := "../../examples/weather/cassettes"
	file := filepath.Join(t.TempDir(), "faults.yaml")
	os.WriteFile(file, []byte("faults:\n  - call 1: 503\n  - 'call 2: reset'\n"), 0o644)
	r := adkproxy(t, []string{"WEATHER_RETRIES=2"}, "replay", "--cassettes", dir, "--faults", file, "--", weather)
	if r.code != 0 || strings.Count(r.stderr, ": recovered") != 2 {
		t.Errorf("--faults: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	os.WriteFile(file, []byte("faults:\n  - call 1: 503\n  - call x: reset\n"), 0o644)
	for _, args := range [][]string{{"--fault", "call 1: 299"}, {"--faults", file}, {"--faults", file + ".missing"}} {
		r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, append(args, "--", "true")...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, args[0]+": ") {
			t.Errorf("%v: exit %d, stderr %q; want 64 naming the flag", args, r.code, r.stderr)
		}
	}
	if r := adkproxy(t, nil, "replay", "--cassettes", dir, "--faults", file, "--", "true"); !strings.Contains(r.stderr, "faults.yaml:3: faults[1]") {
		t.Errorf("a bad spec in the file is not named by line: %s", r.stderr)
	}
}

// TestFakeCommand: adkproxy fake serves its script and prints the export
// lines; a missing or broken script exits 64 naming the file and line.
func TestFakeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "turns.yaml")
	os.WriteFile(script, []byte("turns:\n  - model:\n      - txt: hello\n"), 0o644)
	for args, want := range map[string]string{
		"":                         "fake needs --script FILE",
		"--script " + script:       "turns.yaml:3: turns[0].model[0]: line 3: unknown key \"txt\"",
		"--script " + script + "x": "no such file",
	} {
		r := adkproxy(t, nil, append([]string{"fake"}, strings.Fields(args)...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("fake %s: exit %d, stderr %q; want 64 and %q", args, r.code, r.stderr, want)
		}
	}
	os.WriteFile(script, []byte("turns:\n  - model:\n      - text: hello\n"), 0o644)
	addrFile := filepath.Join(dir, "addr")
	cmd := adkproxyCmd(t, nil, "fake", "--script", script, "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := waitForFile(t, addrFile)
	resp, err := http.Post("http://"+addr+"/v1beta/models/gemini-2.5-flash:generateContent", "application/json",
		strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"text": "hello"`) || !strings.Contains(string(body), `"promptTokenCount": 1`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if !strings.Contains(stdout.String(), "export GOOGLE_GEMINI_BASE_URL=http://"+addr) {
		t.Errorf("stdout: %s", stdout.String())
	}
}
