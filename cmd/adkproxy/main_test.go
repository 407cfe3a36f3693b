package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/adkproxy/adkproxy/internal/testing/agentscenario"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
	"gopkg.in/yaml.v3"
)

// These tests run the real adkproxy binary, and as the wrapped COMMAND they
// run this test binary again in "client" mode (see TestMain), so every
// process boundary, environment variable, signal and exit status is real.

var adkproxyBin, testCADir string

const clientModeEnv = "ADKPROXY_TEST_CLIENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(clientModeEnv); mode != "" {
		if client := proxiedClients[mode]; client != nil { // serve_test.go
			os.Exit(client())
		}
		if mode == "scenario" { // main_test.go
			os.Exit(scenarioClient())
		}
		os.Exit(clientMain(mode))
	}
	// The tests mostly wait on the processes they start, so more of them
	// run at once than there are cores, unless -test.parallel says.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(max(6, 3*runtime.GOMAXPROCS(0))))
	}
	dir, err := os.MkdirTemp("", "adkproxy-bin-")
	if err != nil {
		panic(err)
	}
	adkproxyBin = filepath.Join(dir, "adkproxy")
	testCADir = filepath.Join(dir, "ca") // so no test writes a CA into the real home
	build := exec.Command("go", "build", "-o", adkproxyBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building adkproxy: " + err.Error())
	}
	// Every record and replay run makes sure of the local CA; made once
	// here, parallel tests never race to create it.
	if _, _, err := ca.Ensure(testCADir); err != nil {
		panic("the tests' local CA: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// clientMain is the wrapped command: it talks to GOOGLE_GEMINI_BASE_URL like
// an SDK would and prints the answers.
func clientMain(mode string) int {
	base := os.Getenv("GOOGLE_GEMINI_BASE_URL")
	if base == "" || os.Getenv("GOOGLE_VERTEX_BASE_URL") != base {
		fmt.Fprintln(os.Stderr, "client: base URL env vars not set by adkproxy")
		return 2
	}
	ask := func(question string) int {
		body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":%q}]}]%s}`, question, os.Getenv("EXTRA")) // EXTRA: more fields, starting with ","
		req, _ := http.NewRequest("POST", base+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(body))
		req.Header.Set("x-goog-api-key", os.Getenv("GOOGLE_API_KEY"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "client:", err)
			return 2
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s", resp.StatusCode, b)
		return 0
	}
	switch mode {
	case "ask":
		return ask(os.Getenv("QUESTION"))
	case "print-key":
		fmt.Print(os.Getenv("GOOGLE_API_KEY"), "|", os.Getenv("GEMINI_API_KEY"))
		return 0
	case "exit3":
		return 3
	case "ask-exit3": // a re-record that fails after its first call
		ask(os.Getenv("QUESTION"))
		return 3
	case "kill-self":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	case "wait-for-term":
		ask(os.Getenv("QUESTION"))
		os.WriteFile(os.Getenv("READY_FILE"), []byte("ok"), 0o644)
		time.Sleep(time.Minute) // until adkproxy forwards SIGTERM
		return 0
	}
	return 99
}

type result struct {
	code           int
	stdout, stderr string
}

// adkproxy runs the binary; env entries are added to a clean environment.
func adkproxy(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := adkproxyCmd(t, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running adkproxy: %v", err)
		}
		code = ee.ExitCode()
	}
	return result{code, stdout.String(), stderr.String()}
}

func adkproxyCmd(t *testing.T, env []string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // hang guard only
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, adkproxyBin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "ADKPROXY_CA_DIR=" + testCADir}, env...)
	return cmd
}

// startOnLoopback starts adkproxy with args on a free loopback port
// (stderr, if not nil, gets its log) and returns it with its base URL once
// it listens.
func startOnLoopback(t *testing.T, stderr io.Writer, args ...string) (*exec.Cmd, string) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := adkproxyCmd(t, nil, append(args, "--listen", "127.0.0.1:0", "--addr-file", addrFile)...)
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, "http://" + waitForFile(t, addrFile)
}

// scriptedUpstream serves adkproxy's scripted fake Gemini API: the first
// model call of every session gets one answer.
func scriptedUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	return httptest.NewServer(scriptedHandler(t))
}

// scriptedHandler is scriptedUpstream's handler, to serve elsewhere.
func scriptedHandler(t *testing.T) http.Handler {
	t.Helper()
	script, err := fake.ParseScript("upstream.yaml", []byte("turns:\n  - model:\n      - text: It is 18 degrees and sunny.\n"))
	if err != nil {
		t.Fatal(err)
	}
	return fake.New(script)
}

// self is the wrapped command: this test binary in client mode.
func self(mode string) []string {
	return []string{"--", "env", clientModeEnv + "=" + mode, os.Args[0]}
}

func TestUsageErrorsExit64(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"bogus"},
		{"replay", "--no-such-flag"},
		{"replay"},
		{"record", "--cassettes", t.TempDir(), "--upstream", "not a url"},
		{"record", "--cassettes", t.TempDir(), "--cassette", "../up"},
		{"replay", "--cassettes", t.TempDir(), "--log-level", "loud"},
	} {
		r := adkproxy(t, nil, args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "adkproxy: ") || strings.Count(r.stderr, "\n") > 2 {
			t.Errorf("%v: exit %d, stderr %q; want 64 and a short message", args, r.code, r.stderr)
		}
	}
}

func TestRecordThenReplayThroughWrappedCommand(t *testing.T) {
	t.Parallel()
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	dir := testutil.OutDir(t)
	env := []string{"QUESTION=What is adkproxy?", "GOOGLE_API_KEY=" + testutil.SecretAPIKey}

	rec := adkproxy(t, env, append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
	if rec.code != 0 || !strings.HasPrefix(rec.stdout, "200 ") || !strings.Contains(rec.stderr, "recorded 1 exchange") {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	if got := upstream.Requests()[0].Header.Get("X-Goog-Api-Key"); got != testutil.SecretAPIKey {
		t.Fatalf("upstream got key %q", got)
	}
	up.Close()
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Fatalf("the API key was written %d times", n)
	}

	rep := adkproxy(t, []string{"QUESTION=What is adkproxy?"}, append([]string{"replay", "--cassettes", dir}, self("ask")...)...)
	if rep.code != 0 || rep.stdout != rec.stdout {
		t.Fatalf("replay: exit %d\nstdout %q, want %q\nstderr %s", rep.code, rep.stdout, rec.stdout, rep.stderr)
	}

	// Same command, changed prompt: the command itself passes (it got an
	// HTTP answer), but adkproxy must fail the run.
	miss := adkproxy(t, []string{"QUESTION=Something else"}, append([]string{"replay", "--cassettes", dir}, self("ask")...)...)
	if miss.code != exitUnmatched || !strings.HasPrefix(miss.stdout, "400 ") {
		t.Fatalf("changed prompt: exit %d, stdout %s", miss.code, miss.stdout)
	}
	for _, want := range []string{"1 unmatched", `contents[0].parts[0].text: recorded "What is adkproxy?", got "Something else"`} {
		if !strings.Contains(miss.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, miss.stderr)
		}
	}
}

func TestReplaySetsPlaceholderKeyOnlyWhenUnset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, self("print-key")...)...)
	if r.code != 0 || r.stdout != proxyopt.ReplayPlaceholderKey+"|" {
		t.Fatalf("exit %d, keys %q", r.code, r.stdout)
	}
	r = adkproxy(t, []string{"GOOGLE_API_KEY=mine"}, append([]string{"replay", "--cassettes", dir}, self("print-key")...)...)
	if r.stdout != "mine|" {
		t.Fatalf("keys %q", r.stdout)
	}
}

func TestCommandStatusPassesThrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, self("exit3")...)...); r.code != 3 {
		t.Errorf("exit %d, want the command's 3 (stderr %s)", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, self("kill-self")...)...); r.code != 128+9 {
		t.Errorf("exit %d, want 137 for a command killed by SIGKILL", r.code)
	}
	if r := adkproxy(t, nil, "replay", "--cassettes", dir, "--", "/no/such/program"); r.code != exitNoCommand {
		t.Errorf("exit %d, want 127 for a missing command", r.code)
	}
}

func TestCorruptCassetteExits65WithFileAndLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "default.yaml"), []byte("version: 1\nname: x\ninteractions:\n  - request: {method: GET, path: /x}\n    response: {status: 999}\n"), 0o644)
	r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, self("ask")...)...)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "default.yaml:5:") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	// --check reads every cassette before serving: no command, no request.
	os.WriteFile(filepath.Join(dir, "default.yaml"), []byte("version: 7\n"), 0o644)
	if r := adkproxy(t, nil, "replay", "--check", "--cassettes", dir); r.code != exitDataErr || !strings.Contains(r.stderr, "upgrade adkproxy") {
		t.Fatalf("unknown version: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "replay", "--cassettes", filepath.Join(dir, "missing")); r.code != exitDataErr || !strings.Contains(r.stderr, "does not exist") ||
		!strings.Contains(r.stderr, "record into it first with 'adkproxy record --cassettes "+filepath.Join(dir, "missing")) {
		t.Fatalf("missing folder: exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestUnwritableCassetteExits73(t *testing.T) {
	t.Parallel()
	up := scriptedUpstream(t)
	defer up.Close()
	notADir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notADir, []byte("x"), 0o644)
	r := adkproxy(t, []string{"QUESTION=hi"}, append([]string{"record", "--cassettes", notADir, "--upstream", up.URL}, self("ask")...)...)
	if r.code != exitCantWrite || !strings.Contains(r.stderr, "could not be written") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestServeWithoutCommand: --addr-file, the export lines, flags from
// ADKPROXY_* variables, and SIGINT flushing the cassette.
func TestServeWithoutCommand(t *testing.T) {
	t.Parallel()
	up := scriptedUpstream(t)
	defer up.Close()
	dir := testutil.OutDir(t)
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := adkproxyCmd(t, []string{"ADKPROXY_CASSETTES=" + dir, "ADKPROXY_UPSTREAM=" + up.URL, "ADKPROXY_CASSETTE=served"},
		"record", "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := waitForFile(t, addrFile)
	resp, err := http.Post("http://"+addr+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{"contents":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGINT: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "export GOOGLE_GEMINI_BASE_URL=http://"+addr) {
		t.Errorf("stdout lacks the export line: %s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "served.yaml")); err != nil {
		t.Fatalf("cassette not written on SIGINT: %v", err)
	}
}

// TestSIGTERMIsForwardedAndNothingIsLost: adkproxy passes SIGTERM to the
// command, reports its death by signal, and still writes the cassette.
func TestSIGTERMIsForwardedAndNothingIsLost(t *testing.T) {
	t.Parallel()
	up := scriptedUpstream(t)
	defer up.Close()
	dir := testutil.OutDir(t)
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := adkproxyCmd(t, []string{"QUESTION=hold on", "READY_FILE=" + ready},
		append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("wait-for-term")...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, ready)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %v, want 143\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "default.yaml")); err != nil {
		t.Fatalf("cassette lost on SIGTERM: %v", err)
	}
}

func waitForFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // hang guard only
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

// snapshot is a folder's file names, sizes, times and contents (and its
// folders' names: a lock file coming and going may change their times).
func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			fmt.Fprintf(&b, "%s/; ", path)
			return nil
		}
		data, _ := os.ReadFile(path)
		fmt.Fprintf(&b, "%s %d %s %q; ", path, info.Size(), info.ModTime(), data)
		return nil
	})
	return b.String()
}

// Helpers of the diff tests: temporary files, and a recorded cassette
// rewritten as a version 1 file.

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func reflectEqual(a, b any) bool { return reflect.DeepEqual(a, b) }

// writeVersion1 writes the exchanges of a recorded (version 2) cassette as
// a version 1 file: a flat list of interactions, bodies as recorded.
func writeVersion1(t *testing.T, from, to string) {
	t.Helper()
	c, err := cassettes.Load(from)
	if err != nil {
		t.Fatal(err)
	}
	type msg struct {
		Method string `yaml:"method,omitempty"`
		Path   string `yaml:"path,omitempty"`
		Status int    `yaml:"status,omitempty"`
		Body   string `yaml:"body"`
	}
	type interaction struct{ Request, Response msg }
	doc := struct {
		Version      int           `yaml:"version"`
		Name         string        `yaml:"name"`
		Interactions []interaction `yaml:"interactions"`
	}{Version: 1, Name: "golden"}
	for _, x := range c.Exchanges {
		if x.Response.Streamed() {
			t.Fatal("writeVersion1 takes unstreamed responses only")
		}
		doc.Interactions = append(doc.Interactions, interaction{
			Request:  msg{Method: x.Request.Method, Path: x.Request.Path, Body: string(x.Request.Body)},
			Response: msg{Status: x.Response.Status, Body: string(x.Response.Body)},
		})
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Recorded runs for the diff tests: a scripted model (an httptest server
// in the test process) and a wrapped agent (this test binary in
// "scenario" client mode, using the real genai client) recorded through
// the real adkproxy. What the model answers and what the tools return come
// from a scenario, so two scenarios differing in one thing give two runs
// differing in exactly that.

// The scenario types, and the scenarios the tests share, are
// agentscenario's; these names keep the tests short.
type scenario = agentscenario.Scenario

var (
	weatherScenario    = agentscenario.Weather
	refactoredScenario = agentscenario.RefactoredWeather
)

// toolHost is the weather API's name; --connect-to routes it to a fake.
const toolHost = agentscenario.ToolHost

// recordScenario records sc into a new folder and returns it.
func recordScenario(t *testing.T, name string, sc *scenario) string {
	t.Helper()
	up := httptest.NewServer(agentscenario.ScriptedModel(t, sc))
	defer up.Close()
	dir := testutil.OutDir(t) + "/" + name
	doc, _ := json.Marshal(sc)
	args := []string{"record", "--cassettes", dir, "--upstream", up.URL, "--no-forward-proxy"}
	if len(sc.HTTPTools) > 0 { // the tools reach the weather API through the forward proxy
		public := newTestCA(t)
		api := testutil.StartCounting(t, weatherAPI, public.Leaf)
		defer api.Close()
		args = []string{"record", "--cassettes", dir, "--upstream", up.URL,
			"--connect-to", toolHost + ":443=" + api.Addr(), "--upstream-ca", public.CertPath}
	}
	r := adkproxy(t, []string{"SCENARIO=" + string(doc), "GOOGLE_API_KEY=" + testutil.SecretAPIKey}, append(args, self("scenario")...)...)
	if r.code != 0 {
		t.Fatalf("recording %s: exit %d\nstdout %s\nstderr %s", name, r.code, r.stdout, r.stderr)
	}
	return dir
}

// scenarioClient is the wrapped agent: it plays SCENARIO's sessions with
// the genai client, running each turn's agents and their tools.
func scenarioClient() int {
	var sc scenario
	if err := json.Unmarshal([]byte(os.Getenv("SCENARIO")), &sc); err != nil {
		fmt.Fprintln(os.Stderr, "scenario:", err)
		return 2
	}
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err == nil {
		err = agentscenario.Play(ctx, client, &sc)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scenario:", err)
		return 2
	}
	return 0
}
