package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestLoad64SessionsOf20Steps: 64 agents at once, each a session of 10
// turns with a tool call per turn (20 model calls), through one proxy
// process: recorded, then replayed, with nothing lost, crossed or
// duplicated, and the proxy's peak memory reported.
func TestLoad64SessionsOf20Steps(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("load test")
	}
	const sessions, turns = 64, 10
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	dir := testutil.OutDir(t)

	recorded, recRSS := underLoad(t, sessions, turns, "record", "--cassettes", dir, "--upstream", up.URL)
	c, err := cassettes.Load(filepath.Join(dir, "load.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	perSession := map[int]int{}
	seen := map[string]int{}
	for _, x := range c.Exchanges {
		perSession[x.Place.Session]++
		seen[string(x.Request.Body)]++
	}
	if len(c.Exchanges) != sessions*turns*2 || len(perSession) != sessions {
		t.Fatalf("recorded %d exchanges in %d sessions, want %d in %d", len(c.Exchanges), len(perSession), sessions*turns*2, sessions)
	}
	for s, n := range perSession {
		if n != turns*2 {
			t.Errorf("session %d holds %d steps, want %d", s, n, turns*2)
		}
	}
	// Sessions s and s+40 ask the same first question (and differ from then
	// on, through their tool results), so that first request is recorded
	// once per session that sent it; every other request exactly once.
	firstAsked := map[string]int{}
	for i := range sessions {
		firstAsked[firstQuestion(i)]++
	}
	for body, n := range seen {
		want := 1
		var req struct {
			Contents []struct{ Parts []struct{ Text string } }
		}
		json.Unmarshal([]byte(body), &req)
		if len(req.Contents) == 1 {
			want = firstAsked[req.Contents[0].Parts[0].Text]
		}
		if n != want {
			t.Errorf("a request was recorded %d times, want %d: %.80s…", n, want, body)
		}
	}

	report := filepath.Join(testutil.OutDir(t), "report.json")
	replayed, repRSS := underLoad(t, sessions, turns, "replay", "--cassettes", dir, "--report", report)
	raw, _ := os.ReadFile(report)
	var r struct{ Counts map[string]int }
	json.Unmarshal(raw, &r)
	if r.Counts["matched"] != sessions*turns*2 || r.Counts["mismatched"]+r.Counts["unmatched"]+r.Counts["unused"] != 0 {
		t.Fatalf("replay counts %v", r.Counts)
	}
	for i := range recorded {
		if recorded[i] != replayed[i] {
			t.Errorf("session %d: recorded %q, replayed %q", i, recorded[i], replayed[i])
		}
	}
	t.Logf("%d sessions x %d steps: peak RSS %d MiB recording, %d MiB replaying; cassette %d KiB",
		sessions, turns*2, recRSS>>10, repRSS>>10, fileSize(t, filepath.Join(dir, "load.yaml"))>>10)
}

// underLoad serves adkproxy with args, runs the sessions against it at once,
// stops it with SIGINT and returns each session's transcript and the
// process's peak resident memory in KiB.
func underLoad(t *testing.T, sessions, turns int, args ...string) ([]string, int) {
	t.Helper()
	var stderr bytes.Buffer
	cmd, base := startOnLoopback(t, &stderr, append(args, "--cassette", "load", "--log-level", "error")...)
	out := make([]string, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = converse(t, base, i, turns)
		}()
	}
	wg.Wait()
	rss := peakRSS(t, cmd)
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("adkproxy %s: %v\n%s", args[0], err, stderr.String())
	}
	return out, rss
}

// converse runs one session: each turn asks about a city, answers the
// model's tool call and keeps the history.
func converse(t *testing.T, base string, session, turns int) string {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "load-test-key-0123456789", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base}})
	if err != nil {
		t.Error(err)
		return ""
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_weather",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}}}}}}
	var history []*genai.Content
	var transcript strings.Builder
	for turn := range turns {
		history = append(history, genai.NewContentFromText(question(session, turn), genai.RoleUser))
		for step := 0; step < 2; step++ {
			resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", history, config)
			if err != nil {
				t.Errorf("session %d turn %d step %d: %v", session, turn, step, err)
				return transcript.String()
			}
			history = append(history, resp.Candidates[0].Content)
			if calls := resp.FunctionCalls(); len(calls) > 0 {
				history = append(history, genai.NewContentFromFunctionResponse(calls[0].Name,
					map[string]any{"temp_c": session + turn}, genai.RoleUser))
				continue
			}
			transcript.WriteString(resp.Text() + "|")
		}
	}
	return transcript.String()
}

// question is what session asks at turn: sessions overlap on purpose.
func question(session, turn int) string {
	return fmt.Sprintf("Session %d turn %d: weather in City%d?", session%8, turn, (session+turn)%5)
}

func firstQuestion(session int) string { return question(session, 0) }

// peakRSS reads the process's high-water resident memory (KiB) from /proc.
func peakRSS(t *testing.T, cmd *exec.Cmd) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Logf("peak memory not available: %v", err)
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int
			fmt.Sscanf(strings.TrimPrefix(line, "VmHWM:"), "%d", &kb)
			return kb
		}
	}
	return 0
}

func fileSize(t *testing.T, path string) int {
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(info.Size())
}

// TestCassetteTooLargeForTheAddressSpaceExits65 is issue 39 item 5's
// refusal: under an address-space limit (ulimit -v) that loading a 64 MiB
// cassette would exceed, `ls` exits 65 naming the file instead of the Go
// runtime dying out of memory mid-load; with room enough it loads.
func TestCassetteTooLargeForTheAddressSpaceExits65(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		testutil.Require(t, "prlimit(1) from util-linux (to run adkproxy under an address-space limit)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	head := "version: 2\nname: big\nsessions:\n  - id: 1\n    invocations:\n      - id: 1\n        user: hi\n        steps:\n" +
		"          - step: 0\n            agent: a\n            request:\n              method: POST\n" +
		"              path: /v1beta/models/m:generateContent\n              body: '{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}'\n" +
		"            response:\n              status: 200\n              body: |-\n"
	line := "                " + strings.Repeat("word ", 200) + "\n"
	var b bytes.Buffer
	b.WriteString(head)
	for b.Len() < 64<<20 {
		b.WriteString(line)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := func(limitMiB int) (int, string) {
		c := exec.Command("prlimit", "--as="+strconv.Itoa(limitMiB<<20), adkproxyBin, "ls", dir)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, stderr.String()
	}
	if code, stderr := cmd(2000); code != 65 || !strings.Contains(stderr, path) || !strings.Contains(stderr, "ulimit -v") {
		t.Errorf("under a 2000 MiB address-space limit: exit %d, want 65 naming %s and the limit\n%.600s", code, path, stderr)
	}
	if code, stderr := cmd(6000); code != 0 {
		t.Errorf("under a 6000 MiB limit: exit %d\n%.600s", code, stderr)
	}
}
