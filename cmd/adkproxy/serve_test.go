package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
)

// TestHealthFromAnotherMachineNeedsTheToken: a proxy on a non-loopback
// address with --control-token answers `adkproxy health` only when the
// token comes along, by flag or by ADKPROXY_CONTROL_TOKEN.
func TestHealthFromAnotherMachineNeedsTheToken(t *testing.T) {
	t.Parallel()
	ip := testutil.NonLoopbackIP(t)
	const token = "health-check-token"
	addrFile := filepath.Join(t.TempDir(), "addr")
	proxy := adkproxyCmd(t, []string{"ADKPROXY_CONTROL_TOKEN=" + token}, "replay", "--cassettes", t.TempDir(),
		"--listen", net.JoinHostPort(ip.String(), "0"), "--addr-file", addrFile)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer proxy.Process.Kill()
	url := "http://" + waitForFile(t, addrFile)

	if r := adkproxy(t, nil, "health", "--url", url); r.code != 1 || !strings.Contains(r.stderr, "401") || !strings.Contains(r.stderr, "Authorization: Bearer") {
		t.Errorf("health without the token: %d %s, want 1 naming the bearer token", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "health", "--url", url, "--control-token", token); r.code != 0 || !strings.Contains(r.stdout, "ok: adkproxy replay") {
		t.Errorf("health with --control-token: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if r := adkproxy(t, []string{"ADKPROXY_URL=" + url, "ADKPROXY_CONTROL_TOKEN=" + token}, "health"); r.code != 0 {
		t.Errorf("health with ADKPROXY_URL and ADKPROXY_CONTROL_TOKEN: %d %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "health", "--url", strings.TrimPrefix(url, "http://"), "--control-token", token); r.code != 0 {
		t.Errorf("health --url HOST:PORT: %d %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "health", "extra"); r.code != exitUsage {
		t.Errorf("health with an argument: %d, want 64", r.code)
	}
}

func TestLocalAddress(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]string{
		"":                DefaultListen,
		"0.0.0.0:9787":    "127.0.0.1:9787",
		"[::]:8080":       "127.0.0.1:8080",
		":9000":           "127.0.0.1:9000",
		"127.0.0.1:9787":  "127.0.0.1:9787",
		"10.0.0.7:9787":   "10.0.0.7:9787",
		"proxy.local:443": "proxy.local:443",
	} {
		if got := localAddress(listen); got != want {
			t.Errorf("localAddress(%q) = %q, want %q", listen, got, want)
		}
	}
}

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

func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

func TestLoadingGCPacesByTheCassettesAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	for _, name := range []string{"a.yaml", "sub/b.yaml", "notes.txt", ".git/c.yaml"} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, make([]byte, 40<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	percent, limit := gcSettings()
	// The limit is the memory in use at the start plus the room: in use
	// is read before and after the call, and the limit must lie between.
	within := func(room int64, path string) (int64, bool) {
		before := inUse()
		restore := loadingGC(path)
		after := inUse()
		_, l := gcSettings()
		restore()
		return l, l >= before+room && l <= after+room
	}
	restore := loadingGC(dir)
	gotPercent, _ := gcSettings()
	restore()
	if gotPercent != -1 {
		t.Errorf("while loading: GC percent %d, want -1", gotPercent)
	}
	if l, ok := within(3*80<<20/2, dir); !ok {
		t.Errorf("while loading: limit %d, want the memory in use plus %d (1.5 times the two cassettes; hidden folders are not read)", l, 3*80<<20/2)
	}
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after loading: GC percent %d, limit %d; want them back at %d, %d", p, l, percent, limit)
	}

	one := filepath.Join(t.TempDir(), "one.yaml") // ls and score take one cassette file too
	if err := os.WriteFile(one, make([]byte, 50<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, ok := within(3*50<<20/2, one); !ok {
		t.Errorf("one cassette file: limit %d, want the memory in use plus %d (1.5 times the file)", l, 3*50<<20/2)
	}
	if l, ok := within(loadingRoom, t.TempDir()); !ok {
		t.Errorf("empty folder: limit %d, want the memory in use plus the %d floor", l, loadingRoom)
	}
}

func TestLoadingGCLeavesUserSettingsAlone(t *testing.T) {
	t.Setenv("GOGC", "150")
	percent, limit := gcSettings()
	restore := loadingGC(t.TempDir())
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("GOGC set: settings changed to %d, %d", p, l)
	}
	restore()
}

func TestCACommands(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ca")
	certPath := filepath.Join(dir, "ca.pem")

	if r := adkproxy(t, nil, "ca", "path", "--ca-dir", dir); r.code != exitDataErr || !strings.Contains(r.stderr, "ca init") {
		t.Errorf("ca path with no CA: exit %d, stderr %q; want 65 and how to make one", r.code, r.stderr)
	}
	r := adkproxy(t, nil, "ca", "init", "--ca-dir", dir)
	if r.code != 0 || r.stdout != certPath+"\n" || !strings.Contains(r.stderr, "created") {
		t.Fatalf("ca init: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if runtime.GOOS != "windows" {
		for f, want := range map[string]os.FileMode{"ca-key.pem": 0o600, "ca.pem": 0o644} {
			if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want mode %04o", f, fi.Mode().Perm(), err, want)
			}
		}
	}
	pem, _ := os.ReadFile(certPath)
	if r := adkproxy(t, []string{"ADKPROXY_CA_DIR=" + dir}, "ca", "show"); r.code != 0 || r.stdout != string(pem) {
		t.Errorf("ca show (ADKPROXY_CA_DIR): exit %d, stdout %q", r.code, r.stdout)
	}
	if r := adkproxy(t, nil, "ca", "path", "--ca-dir", dir); r.code != 0 || r.stdout != certPath+"\n" {
		t.Errorf("ca path: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := adkproxy(t, nil, "ca", "init", "--ca-dir", dir); r.code != 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("second ca init: exit %d, stderr %q", r.code, r.stderr)
	}
	if again, _ := os.ReadFile(certPath); string(again) != string(pem) {
		t.Error("a second ca init replaced the CA")
	}
	for _, args := range [][]string{{"ca", "bogus"}, {"ca"}, {"ca", "path", "extra"}} {
		if r := adkproxy(t, nil, args...); r.code != exitUsage || !strings.Contains(r.stderr, "init") && !strings.Contains(r.stderr, "no arguments") {
			t.Errorf("%v: exit %d, stderr %q; want 64", args, r.code, r.stderr)
		}
	}
}

// A broken CA is never replaced: every command that needs it exits 65
// naming the file, and the file is left as it was.
func TestBrokenCAExits65(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		spoil func(dir string)
		file  string
	}{
		{"missing key", func(dir string) { os.Remove(filepath.Join(dir, "ca-key.pem")) }, "ca-key.pem"},
		{"malformed key", func(dir string) { os.WriteFile(filepath.Join(dir, "ca-key.pem"), []byte("not a key"), 0o600) }, "ca-key.pem"},
		{"malformed cert", func(dir string) { os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("not a cert"), 0o644) }, "ca.pem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ca")
			if r := adkproxy(t, nil, "ca", "init", "--ca-dir", dir); r.code != 0 {
				t.Fatal(r.stderr)
			}
			c.spoil(dir)
			before, _ := os.ReadDir(dir)
			for _, args := range [][]string{
				{"ca", "show", "--ca-dir", dir},
				{"ca", "init", "--ca-dir", dir},
				{"replay", "--cassettes", t.TempDir(), "--ca-dir", dir, "--", "true"},
				{"record", "--cassettes", t.TempDir(), "--ca-dir", dir, "--", "true"},
			} {
				r := adkproxy(t, nil, args...)
				if r.code != exitDataErr || !strings.Contains(r.stderr, filepath.Join(dir, c.file)) {
					t.Errorf("%v: exit %d, stderr %q; want 65 naming %s", args[:2], r.code, r.stderr, c.file)
				}
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("the CA folder changed: %d entries, was %d", len(after), len(before))
			}
		})
	}
	// --no-forward-proxy needs no CA, so a broken one does not stop it.
	dir := filepath.Join(t.TempDir(), "ca")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("junk"), 0o644)
	if r := adkproxy(t, nil, "replay", "--no-forward-proxy", "--cassettes", t.TempDir(), "--ca-dir", dir, "--", "true"); r.code != 0 {
		t.Errorf("--no-forward-proxy with a broken CA: exit %d, %s", r.code, r.stderr)
	}
}

// proxiedClients are wrapped commands that reach the network only through
// the forward proxy adkproxy gives them (HTTPS_PROXY and SSL_CERT_FILE),
// never through a base URL.
var proxiedClients = map[string]func() int{
	"genai-proxied": genaiProxiedClient,
	"tool-get":      toolGetClient,
	"proxy-env":     proxyEnvClient,
	"weather-agent": weatherAgentClient, // tool_test.go
}

// genaiProxiedClient asks the genai client, at its default host, one
// question and one streamed one, and prints the answers.
func genaiProxiedClient() int {
	os.Unsetenv("GOOGLE_GEMINI_BASE_URL") // only HTTPS_PROXY may lead to adkproxy
	os.Unsetenv("GOOGLE_VERTEX_BASE_URL")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("What is the capital of France?"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	fmt.Println("generate:", resp.Text())
	for chunk, err := range client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text("Tell me a short story about a fox"), nil) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "client:", err)
			return 2
		}
		fmt.Println("chunk:", chunk.Text())
	}
	return 0
}

// toolGetClient is a tool calling its API with net/http's defaults.
func toolGetClient() int {
	resp, err := http.Get(os.Getenv("TOOL_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tool:", err)
		return 2
	}
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s", resp.StatusCode, body)
	return 0
}

var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
	"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", "NODE_EXTRA_CA_CERTS"}

// proxyEnvClient prints the proxy and trust variables as JSON, and whether
// an HTTPS request through the proxy verifies the leaf it is shown against
// SSL_CERT_FILE's bundle (Go reads that variable) and, if curl is
// installed, against CURL_CA_BUNDLE with curl's own TLS stack.
func proxyEnvClient() int {
	out := map[string]string{}
	for _, k := range proxyVars {
		if v, ok := os.LookupEnv(k); ok {
			out[k] = v
		}
	}
	if _, ok := out["HTTPS_PROXY"]; ok {
		resp, err := http.Get("https://tool.example.test/check")
		if err != nil {
			out["go"] = "error: " + err.Error()
		} else {
			resp.Body.Close()
			out["go"] = fmt.Sprintf("%d issuer=%s", resp.StatusCode, resp.TLS.PeerCertificates[0].Issuer.CommonName)
		}
		if curl, err := exec.LookPath("curl"); err == nil {
			b, err := exec.Command(curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "https://tool.example.test/check").CombinedOutput()
			out["curl"] = string(b)
			if err != nil {
				out["curl"] += " error: " + err.Error()
			}
		}
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}

func newTestCA(t *testing.T) *ca.Authority {
	t.Helper()
	a, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestForwardProxyGenaiRecordReplay: the genai Go client, given only
// HTTPS_PROXY and SSL_CERT_FILE by adkproxy, records through interception
// (its default host routed by --connect-to to a TLS fake Gemini trusted
// by --upstream-ca) and replays with the upstream stopped, identically.
func TestForwardProxyGenaiRecordReplay(t *testing.T) {
	t.Parallel()
	dir, caDir := testutil.OutDir(t), filepath.Join(t.TempDir(), "ca")
	public := newTestCA(t)
	gemini := &fakegemini.Handler{}
	up := testutil.StartCounting(t, gemini, public.Leaf)
	env := []string{"ADKPROXY_CA_DIR=" + caDir}

	rec := adkproxy(t, append(env, "GOOGLE_API_KEY="+testutil.SecretAPIKey), append([]string{"record", "--cassettes", dir,
		"--connect-to", "generativelanguage.googleapis.com:443=" + up.Addr(),
		"--upstream-ca", public.CertPath}, self("genai-proxied")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, "generate: ") || !strings.Contains(rec.stdout, "chunk: ") {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	if !strings.Contains(rec.stderr, "created a local CA in "+caDir) {
		t.Errorf("record did not say it created the CA: %s", rec.stderr)
	}
	if len(gemini.Requests()) != 2 {
		t.Errorf("the fake Gemini saw %d requests, want 2", len(gemini.Requests()))
	}
	up.Close()
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key appears %d times in the cassettes", n)
	}

	rep := adkproxy(t, env, append([]string{"replay", "--cassettes", dir}, self("genai-proxied")...)...)
	if rep.code != 0 || rep.stdout != rec.stdout {
		t.Errorf("replay: exit %d\nstdout %q, recorded %q\nstderr %s", rep.code, rep.stdout, rec.stdout, rep.stderr)
	}
	if strings.Contains(rep.stderr, "created a local CA") {
		t.Errorf("replay created a second CA: %s", rep.stderr)
	}
}

// TestWrappedCommandProxyEnv: the wrapped command gets the proxy and trust
// variables, can verify the proxy's leaf with the bundle (Go and curl),
// the bundle is gone after the run, and --no-forward-proxy sets none.
func TestWrappedCommandProxyEnv(t *testing.T) {
	t.Parallel()
	caDir := filepath.Join(t.TempDir(), "ca")
	env := []string{"ADKPROXY_CA_DIR=" + caDir, "NO_PROXY=corp.example"}
	r := adkproxy(t, env, append([]string{"replay", "--cassettes", t.TempDir()}, self("proxy-env")...)...)
	var got map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	proxyURL := got["HTTPS_PROXY"]
	if !strings.HasPrefix(proxyURL, "http://127.0.0.1:") {
		t.Fatalf("HTTPS_PROXY=%q", proxyURL)
	}
	bundle := got["SSL_CERT_FILE"]
	for k, want := range map[string]string{
		"https_proxy": proxyURL, "HTTP_PROXY": proxyURL, "http_proxy": proxyURL,
		"NO_PROXY": "localhost,127.0.0.1,::1,corp.example", "no_proxy": "localhost,127.0.0.1,::1,corp.example",
		"REQUESTS_CA_BUNDLE": bundle, "CURL_CA_BUNDLE": bundle, "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": bundle,
		"NODE_EXTRA_CA_CERTS": filepath.Join(caDir, ca.CertFile),
	} {
		if got[k] != want {
			t.Errorf("%s=%q, want %q", k, got[k], want)
		}
	}
	if !strings.HasPrefix(got["go"], "502 issuer=adkproxy local CA") {
		t.Errorf("Go through the proxy with SSL_CERT_FILE: %q, want the 502 of replay over a verified connection", got["go"])
	}
	if _, err := exec.LookPath("curl"); err == nil && got["curl"] != "502" {
		t.Errorf("curl through the proxy with CURL_CA_BUNDLE: %q, want 502", got["curl"])
	}
	if _, err := os.Stat(bundle); !os.IsNotExist(err) {
		t.Errorf("the bundle %s is still there after the run (%v)", bundle, err)
	}
	if r.code != exitUnmatched {
		t.Errorf("exit %d, want 76 for the unrecorded tool request", r.code)
	}

	off := adkproxy(t, env, append([]string{"replay", "--no-forward-proxy", "--cassettes", t.TempDir()}, self("proxy-env")...)...)
	got = nil
	if err := json.Unmarshal([]byte(off.stdout), &got); err != nil || off.code != 0 {
		t.Fatalf("--no-forward-proxy: exit %d, stdout %q, stderr %s", off.code, off.stdout, off.stderr)
	}
	if len(got) != 1 || got["NO_PROXY"] != "corp.example" {
		t.Errorf("--no-forward-proxy still set %v", got)
	}
}

// TestSystemRootsInBundle: the bundle keeps the system roots, so a client
// whose SSL_CERT_FILE replaces its roots still trusts real hosts.
func TestSystemRootsInBundle(t *testing.T) {
	t.Parallel()
	roots, from := ca.SystemRoots()
	if roots == nil {
		t.Skip("this system has no PEM bundle of roots")
	}
	a := newTestCA(t)
	b, err := a.WriteBundle()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove()
	data, _ := os.ReadFile(b.Path)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) || !strings.Contains(string(data), string(roots)) || !strings.HasSuffix(string(data), string(a.PEM)) {
		t.Errorf("bundle %s lacks the roots of %s or the CA", b.Path, from)
	}
}

func TestForwardProxyFlagErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--connect-to", "example.com=1.2.3.4:1"}, `--connect-to: rule "example.com=1.2.3.4:1": "example.com" is not HOST:PORT; want HOST:PORT=ADDR`},
		{[]string{"record", "--upstream-ca", "/no/such/ca.pem"}, "--upstream-ca: upstream CA file /no/such/ca.pem: cannot read it"},
		{[]string{"record", "--upstream-ca", "serve_test.go"}, "--upstream-ca: upstream CA file serve_test.go: no PEM certificate"},
		{[]string{"replay", "--tunnel", "https://auth.example.com"}, "--tunnel"},
		{[]string{"replay", "--tunnel", "a.example.com", "--no-forward-proxy"}, "--no-forward-proxy"},
	} {
		r := adkproxy(t, nil, append(c.args, "--cassettes", t.TempDir())...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 64 mentioning %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := adkproxy(t, []string{"ADKPROXY_CONNECT_TO=nonsense"}, "record", "--cassettes", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, "nonsense") {
		t.Errorf("ADKPROXY_CONNECT_TO=nonsense: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestServeWithoutCommandForwardProxy: served without a command, adkproxy
// prints the proxy variables and the CA, intercepts HTTPS with a leaf that
// CA verifies, and refuses --tunnel hosts in replay.
func TestServeWithoutCommandForwardProxy(t *testing.T) {
	t.Parallel()
	caDir := filepath.Join(t.TempDir(), "ca")
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := adkproxyCmd(t, []string{"ADKPROXY_CA_DIR=" + caDir, "ADKPROXY_TUNNEL=*.tunnel.test"},
		"replay", "--cassettes", t.TempDir(), "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := waitForFile(t, addrFile)
	authority, err := ca.Load(caDir)
	if err != nil {
		t.Fatalf("replay did not create the CA it serves with: %v", err)
	}
	trust := x509.NewCertPool()
	trust.AddCert(authority.Cert)
	proxyURL, _ := url.Parse("http://" + addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: trust}}}

	resp, err := client.Get("https://api.example.test/v1/things")
	if err != nil {
		t.Fatalf("intercepted request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("intercepted request in replay: %d, want 502", resp.StatusCode)
	}
	if _, err := client.Get("https://oauth.tunnel.test/token"); err == nil || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("--tunnel host in replay: %v, want the CONNECT refused", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	for _, want := range []string{"export HTTPS_PROXY=http://" + addr, "export NODE_EXTRA_CA_CERTS=" + authority.CertPath} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
}
