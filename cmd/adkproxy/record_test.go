package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
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

// byRunUpstream is a scripted fake whose answer varies by run: the n-th
// model call it gets is answered by the fake scripted with texts[n].
func byRunUpstream(t *testing.T, texts []string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var handlers []http.Handler
	for _, text := range texts {
		script, err := fake.ParseScript("run.yaml", []byte("turns:\n  - model:\n      - text: "+text+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		handlers = append(handlers, fake.New(script))
	}
	var calls atomic.Int64
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n := int(calls.Add(1)) - 1
		mu.Unlock()
		if n >= len(handlers) {
			http.Error(w, "more calls than scripted runs", http.StatusBadRequest)
			return
		}
		handlers[n].ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	return up, &calls
}

const weatherQuestion = "What is the weather in Paris?"

var (
	rightAnswer = "It is 18 degrees and sunny in Paris."
	wrongAnswer = "Sorry, no idea."
)

// writeWeatherEvalSet writes an eval set whose one case, "weather",
// expects rightAnswer, and a config judging the final response alone.
func writeWeatherEvalSet(t *testing.T, dir string) (evalset, config string) {
	t.Helper()
	evalset = filepath.Join(dir, "weather.evalset.json")
	config = filepath.Join(dir, "config.json")
	set := `{"eval_set_id": "weather", "eval_cases": [{"eval_id": "weather", "conversation": [{"invocation_id": "w1",
  "user_content": {"parts": [{"text": "` + weatherQuestion + `"}], "role": "user"},
  "final_response": {"parts": [{"text": "` + rightAnswer + `"}], "role": "model"}}]}]}`
	if err := os.WriteFile(evalset, []byte(set), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(`{"criteria": {"response_match_score": 0.8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return evalset, config
}

// recordSamples records len(answers) samples of cassette "weather" from a
// fake answering run N with answers[N-1].
func recordSamples(t *testing.T, dir string, answers []string) {
	t.Helper()
	up, calls := byRunUpstream(t, answers)
	k := len(answers)
	env := []string{"QUESTION=" + weatherQuestion}
	r := adkproxy(t, env, append([]string{"record", "--cassettes", dir, "--cassette", "weather", "--upstream", up.URL, "--samples", strconv.Itoa(k)}, self("ask")...)...)
	if r.code != 0 {
		t.Fatalf("record --samples %d: exit %d\nstdout %s\nstderr %s", k, r.code, r.stdout, r.stderr)
	}
	if calls.Load() != int64(k) {
		t.Fatalf("the fake got %d calls, want one per sample (%d)", calls.Load(), k)
	}
}

// Five samples recorded from a fake that answers right in runs 1, 2 and 4:
// ls lists weather@1..5, replay replays each in turn (and --sample N one),
// and score gives pass@1, pass^5, the flip rate and the Wilson interval
// computed here by hand.
func TestRecordSamplesReplayAndScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answers := []string{rightAnswer, rightAnswer, wrongAnswer, rightAnswer, wrongAnswer}
	recordSamples(t, dir, answers)
	for n := 1; n <= 5; n++ {
		if _, err := os.Stat(filepath.Join(dir, "weather@"+strconv.Itoa(n)+".yaml")); err != nil {
			t.Fatalf("sample %d: %v", n, err)
		}
	}
	ls := adkproxy(t, nil, "ls", "--cassettes", dir)
	for n := 1; n <= 5; n++ {
		if !strings.Contains(ls.stdout, "weather@"+strconv.Itoa(n)) {
			t.Errorf("ls does not show weather@%d:\n%s", n, ls.stdout)
		}
	}

	env := []string{"QUESTION=" + weatherQuestion}
	all := adkproxy(t, env, append([]string{"replay", "--cassettes", dir, "--cassette", "weather"}, self("ask")...)...)
	if all.code != 0 || strings.Count(all.stdout, "200 ") != 5 || strings.Count(all.stdout, "Sorry, no idea.") != 2 {
		t.Fatalf("replay of every sample: exit %d\nstdout %s\nstderr %s", all.code, all.stdout, all.stderr)
	}
	third := adkproxy(t, env, append([]string{"replay", "--cassettes", dir, "--cassette", "weather", "--sample", "3"}, self("ask")...)...)
	if third.code != 0 || !strings.Contains(third.stdout, wrongAnswer) || strings.Count(third.stdout, "200 ") != 1 {
		t.Fatalf("replay --sample 3: exit %d\nstdout %s\nstderr %s", third.code, third.stdout, third.stderr)
	}
	none := adkproxy(t, env, append([]string{"replay", "--cassettes", dir, "--cassette", "weather", "--sample", "6"}, self("ask")...)...)
	if none.code != exitUsage || !strings.Contains(none.stderr, "its samples: 1, 2, 3, 4, 5") {
		t.Fatalf("replay --sample 6: exit %d, stderr %s", none.code, none.stderr)
	}

	evalset, config := writeWeatherEvalSet(t, t.TempDir())
	sc := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--config", config, "--format", "json")
	if sc.code != exitFailure {
		t.Fatalf("score: exit %d, want 1 (the pooled case fails)\nstderr %s", sc.code, sc.stderr)
	}
	var doc struct {
		Cases []struct {
			ID      string `json:"eval_id"`
			Details struct {
				Samples map[string]any `json:"samples"`
			} `json:"details"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(sc.stdout), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("score json: %v, %d cases\n%s", err, len(doc.Cases), sc.stdout)
	}
	// By hand: c = 3 of n = 5; pass^5 = C(3,5)/C(5,5) = 0; pass@5 = 1;
	// flips: runs 2-3, 3-4, 4-5 of 4 pairs. Wilson with z = 1.959964:
	// centre (0.6 + z²/10)/(1 + z²/5), half z·sqrt(0.24/5 + z²/100)/(1 + z²/5).
	z := 1.959963984540054
	den := 1 + z*z/5
	mid, half := (0.6+z*z/10)/den, z*math.Sqrt(0.24/5+z*z/100)/den
	want := map[string]float64{"n": 5, "passes": 3, "pass_at_1": 0.6, "pass_at_k": 1, "pass_hat_k": 0, "flip_rate": 0.75,
		"interval_low": mid - half, "interval_high": mid + half}
	got := doc.Cases[0].Details.Samples
	for key, w := range want {
		if g, ok := got[key].(float64); !ok || math.Abs(g-w) > 1e-9 {
			t.Errorf("samples %s = %v, want %v", key, got[key], w)
		}
	}
	if got["flaky"] != true {
		t.Errorf("a case that passed and failed is not flaky: %v", got)
	}
	wilson := fmt.Sprintf("[%.4f, %.4f]", mid-half, mid+half) // [0.2307, 0.8824]
	for _, format := range []string{"table", "markdown", "junit", "html", "csv", "jsonl"} {
		out := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--config", config, "--format", format)
		wants := []string{"pass@1 0.6", wilson, "pass^5 0", "flip rate 0.75", "FLAKY"}
		switch format {
		case "markdown":
			wants[1] = strings.NewReplacer("[", `\[`, "]", `\]`).Replace(wilson)
		case "csv":
			wants = []string{"samples.pass_at_1,samples.pass_at_k,samples.pass_hat_k,samples.flip_rate", ",0.6,1,0,0.75,"}
		case "jsonl":
			wants = []string{`"samples.pass_at_1":0.6`, `"samples.flaky":true`}
		case "junit":
			wants = append(wants, `name="samples.pass_at_1" value="0.6"`, `name="samples.flaky" value="weather"`)
		}
		if format == "table" || format == "markdown" || format == "html" {
			wants = append(wants, "SAMPLES 3 of 5 samples passed over 1 cases", "mean score over 5 samples")
		}
		for _, w := range wants {
			if !strings.Contains(out.stdout, w) {
				t.Errorf("score --format %s lacks %q:\n%s", format, w, out.stdout)
			}
		}
	}
}

// The gate through the binary, on samples recorded from the fake: five
// right answers against a baseline of five is INCONCLUSIVE at margin 0
// (exit 2) and PASSes at margin 0.5; five wrong answers FAIL (exit 1).
// The intervals are Newcombe's, computed here by hand.
func TestScoreBaselineGate(t *testing.T) {
	t.Parallel()
	good, bad := t.TempDir(), t.TempDir()
	recordSamples(t, good, []string{rightAnswer, rightAnswer, rightAnswer, rightAnswer, rightAnswer})
	recordSamples(t, bad, []string{wrongAnswer, wrongAnswer, wrongAnswer, wrongAnswer, wrongAnswer})
	evalset, config := writeWeatherEvalSet(t, t.TempDir())
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	if r := adkproxy(t, nil, "score", "--cassettes", good, "--expected", evalset, "--config", config, "--format", "json", "--out", baseline); r.code != 0 {
		t.Fatalf("baseline: exit %d\n%s", r.code, r.stderr)
	}
	z := 1.959963984540054
	// Wilson(5 of 5) = [1/(1+z²/5), 1]; Wilson(0 of 5) = [0, 1 - that].
	low5 := 1 / (1 + z*z/5)
	same := fmt.Sprintf("interval [%.4f, %.4f]", -(1 - low5), 1-low5)             // 5/5 vs 5/5: ±(1 - low5)
	worse := fmt.Sprintf("interval [%.4f, %.4f]", -1.0, -1+math.Sqrt(2)*(1-low5)) // 0/5 vs 5/5
	for _, tc := range []struct {
		dir    string
		margin []string
		code   int
		wants  []string
	}{
		{good, nil, exitInconclusive, []string{"INCONCLUSIVE weather/weather  5/5 → 5/5  difference 0, " + same, "GATE INCONCLUSIVE"}},
		{good, []string{"--margin", "0.5"}, 0, []string{"PASS         SUITE  5/5 → 5/5", "GATE PASS"}},
		{bad, nil, exitFailure, []string{"FAIL         weather/weather  5/5 → 0/5  difference -1, " + worse, "GATE FAIL"}},
	} {
		args := append([]string{"score", "--cassettes", tc.dir, "--expected", evalset, "--config", config, "--baseline", baseline}, tc.margin...)
		r := adkproxy(t, nil, args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d\nstderr %s", tc.margin, r.code, tc.code, r.stderr)
		}
		for _, w := range tc.wants {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s %v: stderr lacks %q:\n%s", tc.dir, tc.margin, w, r.stderr)
			}
		}
	}
	if r := adkproxy(t, nil, "score", "--cassettes", good, "--expected", evalset, "--margin", "0.1"); r.code != exitUsage {
		t.Errorf("--margin without --baseline: exit %d, want 64", r.code)
	}
	if r := adkproxy(t, nil, "score", "--cassettes", good, "--expected", evalset, "--baseline", evalset); r.code != exitDataErr || !strings.Contains(r.stderr, "no eval_case_results") {
		t.Errorf("--baseline that is no result: exit %d, stderr %s", r.code, r.stderr)
	}
}
