package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
	"google.golang.org/genai"
)

// TestRecordLogsItsJournalSyncsPerExchange: a recording ends by saying how
// many journal syncs kept its exchanges (make bench reads the line):
// concurrent calls share syncs, so there are at most as many as exchanges.
// Passthrough keeps nothing and syncs nothing, and says nothing of it.
func TestRecordLogsItsJournalSyncsPerExchange(t *testing.T) {
	t.Parallel()
	upstream := scriptedUpstream(t)
	defer upstream.Close()
	line := regexp.MustCompile(`msg="journal syncs" syncs=(\d+) exchanges=(\d+) mean_sync_ms=[0-9.]+ per_exchange=([0-9.]+)`)
	for _, mode := range []string{"overwrite", "passthrough"} {
		var stderr bytes.Buffer
		cmd, base := startOnLoopback(t, &stderr, "record", "--mode", mode, "--cassettes", t.TempDir(), "--upstream", upstream.URL, "--log-format", "text")
		const calls = 12
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"contents":[{"role":"user","parts":[{"text":"weather %d"}]}]}`, i)
				resp, err := http.Post(base+"/v1beta/models/gemini-2.5-flash:generateContent", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("call %d: status %d", i, resp.StatusCode)
				}
			}()
		}
		wg.Wait()
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stderr.String())
		}
		m := line.FindStringSubmatch(stderr.String())
		if mode == "passthrough" {
			if m != nil || strings.Contains(stderr.String(), "journal syncs") {
				t.Errorf("passthrough logged journal syncs:\n%s", stderr.String())
			}
			continue
		}
		if m == nil {
			t.Fatalf("no journal syncs line at the end of the recording:\n%s", stderr.String())
		}
		syncs, _ := strconv.Atoi(m[1])
		exchanges, _ := strconv.Atoi(m[2])
		per, _ := strconv.ParseFloat(m[3], 64)
		if exchanges != calls || syncs < 1 || syncs > calls || fmt.Sprintf("%.3f", float64(syncs)/calls) != m[3] || per > 1 {
			t.Errorf("%s: want %d exchanges, 1 to %d syncs and their ratio", m[0], calls, calls)
		}
	}
}

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

func init() { proxiedClients["genai-env-key"] = genaiEnvKeyClient }

// genaiEnvKeyClient builds the Go genai client from the environment alone,
// as an app that sets no key in code does, and prints the key it found.
func genaiEnvKeyClient() int {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	fmt.Print(client.ClientConfig().APIKey)
	return 0
}

// In replay with no key of the user's, only GOOGLE_API_KEY gets the
// placeholder: every SDK reads it (Go and JS genai, ADK-JS, Python genai),
// and setting GEMINI_API_KEY as well makes them warn on every client.
func TestReplayPlaceholderKeyQuietsTheGoClient(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, append([]string{"replay", "--cassettes", t.TempDir()}, self("genai-env-key")...)...)
	if r.code != 0 || r.stdout != proxyopt.ReplayPlaceholderKey {
		t.Fatalf("exit %d, key %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "Both GOOGLE_API_KEY and GEMINI_API_KEY") {
		t.Errorf("the client warns about two keys:\n%s", r.stderr)
	}
	// A key of the user's, in either variable, is left alone and alone.
	for _, env := range []string{"GOOGLE_API_KEY=mine", "GEMINI_API_KEY=mine"} {
		r := adkproxy(t, []string{env}, append([]string{"replay", "--cassettes", t.TempDir()}, self("genai-env-key")...)...)
		if r.code != 0 || r.stdout != "mine" || strings.Contains(r.stderr, "Both") {
			t.Errorf("%s: exit %d, key %q, stderr:\n%s", env, r.code, r.stdout, r.stderr)
		}
	}
}

// Recording from an upstream that is not Google's (a fake, a staging
// server) needs no key: with neither variable set, the command gets the
// placeholder replay gives, and a genai client that builds its key from the
// environment records through to the fake. Against Google's hosts no
// placeholder is made up, and a key of the user's is left alone.
func TestRecordFromALocalUpstreamNeedsNoKey(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	record := func(env []string, upstream, client string) result {
		return adkproxy(t, env, append([]string{"record", "--cassettes", t.TempDir(), "--upstream", upstream, "--allow-empty"}, self(client)...)...)
	}
	if r := record(nil, up.URL, "genai-env-key"); r.code != 0 || r.stdout != proxyopt.ReplayPlaceholderKey {
		t.Errorf("local upstream: exit %d, key %q\n%s", r.code, r.stdout, r.stderr)
	}
	if r := record([]string{"QUESTION=What is the weather in Paris?"}, up.URL, "ask"); r.code != 0 || !strings.HasPrefix(r.stdout, "200 ") || !strings.Contains(r.stderr, "recorded 1 exchange(s)") {
		t.Errorf("recording from a local upstream with no key: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, google := range []string{proxy.DefaultUpstream, "https://staging-generativelanguage.sandbox.googleapis.com", "https://GoogleAPIs.com."} {
		if r := record(nil, google, "print-key"); r.code != 0 || r.stdout != "|" {
			t.Errorf("%s: exit %d, keys %q, want none\n%s", google, r.code, r.stdout, r.stderr)
		}
	}
	if r := record([]string{"GEMINI_API_KEY=mine"}, up.URL, "print-key"); r.code != 0 || r.stdout != "|mine" {
		t.Errorf("a key of the user's: exit %d, keys %q\n%s", r.code, r.stdout, r.stderr)
	}
}

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

// TestRedactValuesAreNamedByTheirFlag: a --redact value about to leak is
// named as the user gave it, by the flag and its position.
func TestRedactValuesAreNamedByTheirFlag(t *testing.T) {
	t.Parallel()
	const second = "second-secret-value"
	err := redactorFor([]string{"first-secret-value", second}).Scan([]byte("x: " + second + "\n"))
	if !errors.Is(err, cassettes.ErrSecretLeak) || !strings.Contains(err.Error(), "--redact value #2") || strings.Contains(err.Error(), second) {
		t.Errorf("Scan = %v; want the leak named --redact value #2", err)
	}
}

// An agent that bypasses adkproxy must not go green: a strict replay no
// request reached while cassettes exist fails with 76, and so does a
// record run that recorded nothing, each saying what to check; a run
// that sends nothing on purpose passes with --allow-empty.
func TestRunThatNoRequestReachedFails(t *testing.T) {
	t.Parallel()
	cas := filepath.Join(t.TempDir(), "cas")
	os.CopyFS(cas, os.DirFS("../../examples/weather/cassettes"))
	before := snapshot(t, cas)
	bypass := []string{"--", "sh", "-c", "echo the agent talked to someone else"}
	for _, c := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"strict replay", append([]string{"replay", "--cassettes", cas}, bypass...), 76, "no request reached adkproxy, but " + cas + " holds 1 cassette(s)"},
		{"record", append([]string{"record", "--cassettes", cas, "--upstream", "http://127.0.0.1:9"}, bypass...), 76, "nothing was recorded: no request reached adkproxy"},
		{"strict replay, command failed", append([]string{"replay", "--cassettes", cas}, "--", "sh", "-c", "exit 3"), 3, "no request reached adkproxy"},
		// record set the placeholder key itself: the key is not the cause.
		{"record, command failed", append([]string{"record", "--cassettes", cas, "--upstream", "http://127.0.0.1:9"}, "--", "sh", "-c", "exit 3"), 3, "nothing was recorded: no request reached adkproxy"},
		{"lenient replay", append([]string{"replay", "--mode", "lenient", "--cassettes", cas}, bypass...), 0, ""},
		{"replay --allow-empty", append([]string{"replay", "--allow-empty", "--cassettes", cas}, bypass...), 0, ""},
		{"record --allow-empty", append([]string{"record", "--allow-empty", "--cassettes", cas, "--upstream", "http://127.0.0.1:9"}, bypass...), 0, ""},
		{"replay of an empty folder", append([]string{"replay", "--cassettes", t.TempDir()}, bypass...), 0, ""},
	} {
		r := adkproxy(t, nil, c.args...)
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, r.code, c.code, r.stderr)
		}
		if c.says == "" {
			if strings.Contains(r.stderr, "--allow-empty") {
				t.Errorf("%s: warned of an empty run:\n%s", c.name, r.stderr)
			}
			continue
		}
		for _, want := range []string{c.says, "GOOGLE_GEMINI_BASE_URL", "Pointing a client at adkproxy", "--allow-empty",
			"- the base URL", "createGoogleGenerativeAI({baseURL: http://127.0.0.1:", "OPENAI_BASE_URL=http://127.0.0.1:",
			"- the SDK's own key variable: adkproxy set GOOGLE_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENAI_API_KEY to a placeholder",
			"- the version segment"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "no API key reached adkproxy") {
			t.Errorf("%s: blames the key for a run that sent nothing:\n%s", c.name, r.stderr)
		}
	}
	if after := snapshot(t, cas); after != before {
		t.Errorf("a run that recorded nothing changed the cassettes")
	}

	// A run that did reach adkproxy is not empty.
	if r := adkproxy(t, []string{"QUESTION=What is the weather in Paris?"}, append([]string{"replay", "--mode", "lenient", "--cassettes", cas}, self("ask")...)...); r.code != 0 || strings.Contains(r.stderr, "no request reached") {
		t.Errorf("a replay that was reached: exit %d\n%s", r.code, r.stderr)
	}
}

// A re-record whose COMMAND fails after its first call (the upstream
// answers 404) keeps the committed cassette as it was and puts the run's
// exchange beside it in default.failed.yaml, saying where and how to keep
// it; replay still serves the good cassette. --save-on-failure replaces it.
func TestFailedRecordKeepsTheCassette(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"models/gemini-2.5-flash is not found","status":"NOT_FOUND"}}`)
	}))
	defer up.Close()
	cas := filepath.Join(t.TempDir(), "cas")
	os.CopyFS(cas, os.DirFS("../../examples/weather/cassettes"))
	path := filepath.Join(cas, "default.yaml")
	good, _ := os.ReadFile(path)
	env := []string{"QUESTION=What is the weather in Paris?"}
	record := func(flags ...string) result {
		args := append(append([]string{"record", "--cassettes", cas, "--upstream", up.URL}, flags...), self("ask-exit3")...)
		return adkproxy(t, append(env, "GOOGLE_API_KEY=test-key"), args...)
	}

	r := record()
	if r.code != 3 {
		t.Fatalf("exit %d, want the command's 3\n%s", r.code, r.stderr)
	}
	if now, _ := os.ReadFile(path); string(now) != string(good) {
		t.Fatalf("the failed run replaced the cassette:\n%s", now)
	}
	failed := filepath.Join(cas, "default.failed.yaml")
	if b, err := os.ReadFile(failed); err != nil || !strings.Contains(string(b), "NOT_FOUND") {
		t.Fatalf("the run's exchange is not in %s: %v", failed, err)
	}
	for _, want := range []string{"kept as it was", failed, "--save-on-failure"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r := adkproxy(t, env, append([]string{"replay", "--mode", "lenient", "--cassettes", cas}, self("ask")...)...); r.code != 0 || !strings.HasPrefix(r.stdout, "200 ") {
		t.Errorf("replay of the kept cassette: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	if r := record("--save-on-failure"); r.code != 3 {
		t.Fatalf("--save-on-failure: exit %d\n%s", r.code, r.stderr)
	}
	if now, _ := os.ReadFile(path); !strings.Contains(string(now), "NOT_FOUND") {
		t.Errorf("--save-on-failure kept the old cassette:\n%s", now)
	}
}
