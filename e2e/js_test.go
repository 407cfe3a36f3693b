package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

const (
	// jsScenario is run by node from the repository root.
	jsScenario = "e2e/js/scenario.mjs"
	// jsCalls is how many HTTP requests the scenario makes: generateContent,
	// streamGenerateContent, two generateContent for the function call round
	// trip, countTokens and embedContent.
	jsCalls = 6
	// runDeadline only keeps a broken run from hanging the test forever.
	runDeadline = 2 * time.Minute
	// exitUnmatched is adkproxy's status when replay saw an unrecorded
	// request while the wrapped command exited 0.
	exitUnmatched = 76
)

// TestJSGenaiRecordThenReplay proves that the official JS client
// @google/genai, redirected only by the GOOGLE_GEMINI_BASE_URL that adkproxy
// sets for the command it wraps, records through adkproxy and replays with
// identical results while the upstream is down and no key is set, and that
// a changed request fails the replay.
func TestJSGenaiRecordThenReplay(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)

	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()

	// Record, with the real key.
	rec := runAdkproxy(t, root, bin, childEnv("GOOGLE_API_KEY="+testutil.SecretAPIKey),
		"record", "--cassettes", dir, "--upstream", up.URL, "--", node, jsScenario)
	if rec.code != 0 {
		t.Fatalf("adkproxy record exited %d, want 0; stderr:\n%s", rec.code, rec.stderr)
	}
	recorded := parseScenario(t, "record", rec.stdout)
	checkScenario(t, recorded)

	files := filesUnder(t, dir)
	if len(files) == 0 {
		t.Fatalf("adkproxy record wrote no cassette under %s; stderr:\n%s", dir, rec.stderr)
	}
	checkRecordedWithKey(t, rec, files, upstream, jsCalls)
	if t.Failed() {
		t.FailNow()
	}

	// Replay, with the upstream gone and no key.
	up.Close()
	replayAsRecorded(t, root, bin, childEnv(), dir, recorded, node, jsScenario)

	// Replay of a changed scenario: the weather question asks about Berlin,
	// which was never recorded.
	t.Run("changed request, client keeps going", func(t *testing.T) {
		// Like an agent that swallows API errors: the scenario exits 0, so
		// only adkproxy's status reveals the unrecorded request.
		res := runAdkproxy(t, root, bin, childEnv("SCENARIO_CITY=Berlin", "SCENARIO_KEEP_GOING=1"),
			"replay", "--cassettes", dir, "--", node, jsScenario)
		if res.code != exitUnmatched {
			t.Errorf("adkproxy replay exited %d, want %d (unmatched request); stderr:\n%s", res.code, exitUnmatched, res.stderr)
		}
		checkNamesMiss(t, res.stderr)
		got := parseScenario(t, "replay", res.stdout)
		var weather struct{ Error string }
		if err := json.Unmarshal(got["weather"], &weather); err != nil || !strings.Contains(weather.Error, "Berlin") {
			t.Errorf("the client's weather call should have failed with adkproxy's explanation naming Berlin, got %s", got["weather"])
		}
		for _, step := range []string{"generate", "stream", "countTokens", "embed"} {
			if a, b := canonical(t, recorded[step]), canonical(t, got[step]); !bytes.Equal(a, b) {
				t.Errorf("unchanged step %s differs on replay:\nrecorded %s\nreplayed %s", step, a, b)
			}
		}
	})
	t.Run("changed request, client fails", func(t *testing.T) {
		// The scenario exits 1 on the 400 it gets; adkproxy passes a wrapped
		// command's non-zero status through unchanged (see --help).
		res := runAdkproxy(t, root, bin, childEnv("SCENARIO_CITY=Berlin"),
			"replay", "--cassettes", dir, "--", node, jsScenario)
		if res.code != 1 {
			t.Errorf("adkproxy replay exited %d, want the scenario's own status 1; stderr:\n%s", res.code, res.stderr)
		}
		checkNamesMiss(t, res.stderr)
	})
}

// checkNamesMiss requires adkproxy's stderr to name the unmatched request
// and how it differs from the recording.
func checkNamesMiss(t *testing.T, stderr string) {
	t.Helper()
	for _, want := range []string{"unmatched", "POST /v1beta/models/gemini-2.5-flash:generateContent", "What is the weather in Berlin?"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("adkproxy's stderr does not mention %q:\n%s", want, stderr)
		}
	}
}

// requireJSClient returns the path of node, or skips (fails under CI) when
// node or the pinned @google/genai package is not installed.
func requireJSClient(t *testing.T, root string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	pkg := filepath.Join(root, "e2e", "js", "node_modules", "@google", "genai")
	if _, err := os.Stat(pkg); err != nil {
		testutil.Require(t, pkg+" (run 'make npm-deps')")
	}
	return node
}

// childEnv is this process's environment without anything that would
// change where or how adkproxy and the JS client connect, plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if testutil.ModelEnv[k] || strings.HasPrefix(k, "ADKPROXY_") || strings.HasPrefix(k, "SCENARIO_") {
			continue
		}
		env = append(env, kv)
	}
	// Keep the local CA adkproxy creates on first use out of the real home.
	env = append(env, "ADKPROXY_CA_DIR="+filepath.Join(os.TempDir(), "adkproxy-e2e-ca"))
	return append(env, extra...)
}

type result struct {
	code           int
	stdout, stderr string
}

// runAdkproxy runs the built CLI from the repository root to completion.
func runAdkproxy(t *testing.T, root, bin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	cmd.Env = env
	// adkproxy passes SIGTERM on to the command it wraps; kill it only if
	// it does not stop after that.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	t.Logf("adkproxy %s: %v\nstderr:\n%s", args[0], err, res.stderr)
	if ctx.Err() != nil {
		t.Fatalf("adkproxy %s did not finish within %v; stderr:\n%s", strings.Join(args, " "), runDeadline, res.stderr)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		t.Fatalf("adkproxy %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// parseScenario decodes the scenario's one JSON object, keeping each
// step's result as raw JSON.
// checkRecordedWithKey: neither the cassettes nor adkproxy's output hold
// any trace of the client's key, no cassette is empty, and the upstream
// got wantCalls calls, each carrying the key.
func checkRecordedWithKey(t *testing.T, rec result, files []string, upstream *fakegemini.Handler, wantCalls int) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 {
			t.Errorf("cassette %s is empty", f)
		}
		if n := strings.Count(string(b), testutil.SecretAPIKey); n != 0 {
			t.Errorf("the API key appears %d time(s) in %s", n, f)
		}
	}
	if strings.Contains(rec.stdout+rec.stderr, testutil.SecretAPIKey) {
		t.Errorf("the API key appears in the output of adkproxy record")
	}
	reqs := upstream.Requests()
	if len(reqs) != wantCalls {
		t.Errorf("the upstream saw %d requests, want %d (one per call the client made)", len(reqs), wantCalls)
	}
	for _, r := range reqs {
		if got := r.Header.Get("X-Goog-Api-Key"); got != testutil.SecretAPIKey {
			t.Errorf("upstream request %s %s arrived with x-goog-api-key %q, want the client's key", r.Method, r.Path, got)
		}
	}
}

// replayAsRecorded replays dir around command (the upstream gone, no key
// in env) and requires it to exit 0 and print what it printed recording.
func replayAsRecorded(t *testing.T, root, bin string, env []string, dir string, recorded map[string]json.RawMessage, command ...string) {
	t.Helper()
	rep := runAdkproxy(t, root, bin, env, append([]string{"replay", "--cassettes", dir, "--"}, command...)...)
	if rep.code != 0 {
		t.Fatalf("adkproxy replay exited %d, want 0; stderr:\n%s", rep.code, rep.stderr)
	}
	replayed := parseScenario(t, "replay", rep.stdout)
	if !bytes.Equal(canonical(t, recorded), canonical(t, replayed)) {
		t.Fatalf("replay output differs from the recording:\nrecorded %s\nreplayed %s", canonical(t, recorded), canonical(t, replayed))
	}
}

func parseScenario(t *testing.T, run, stdout string) map[string]json.RawMessage {
	t.Helper()
	var out map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s: the scenario's stdout is not a JSON object: %v\n%s", run, err, stdout)
	}
	if dec.More() {
		t.Fatalf("%s: the scenario printed more than one JSON value:\n%s", run, stdout)
	}
	return out
}

// canonical re-marshals v so that formatting cannot make equal results
// differ; numbers keep their exact text.
func canonical(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var parsed any
	if err := dec.Decode(&parsed); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(parsed)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkScenario makes sure the recorded run really exercised every call,
// so that comparing it with the replay means something.
func checkScenario(t *testing.T, out map[string]json.RawMessage) {
	t.Helper()
	var got struct {
		Generate struct{ Text string }
		Stream   struct {
			Chunks []string
			Text   string
		}
		Weather struct {
			Call struct {
				Name string
				Args map[string]any
			}
			Text string
		}
		CountTokens struct{ TotalTokens int }
		Embed       struct{ Values [][]float64 }
	}
	b, _ := json.Marshal(out)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("scenario output: %v\n%s", err, b)
	}
	if got.Generate.Text == "" {
		t.Errorf("generateContent gave no text: %s", out["generate"])
	}
	if len(got.Stream.Chunks) < 2 || strings.Join(got.Stream.Chunks, "") != got.Stream.Text || got.Stream.Text == "" {
		t.Errorf("generateContentStream should give several chunks of text: %s", out["stream"])
	}
	if got.Weather.Call.Name != "get_weather" || got.Weather.Call.Args["city"] != "Paris" || !strings.Contains(got.Weather.Text, "18") {
		t.Errorf("function call round trip: want get_weather({city: Paris}) and a final text with the tool's 18°C, got %s", out["weather"])
	}
	if got.CountTokens.TotalTokens <= 0 {
		t.Errorf("countTokens gave no count: %s", out["countTokens"])
	}
	if len(got.Embed.Values) != 1 || len(got.Embed.Values[0]) == 0 {
		t.Errorf("embedContent gave no embedding: %s", out["embed"])
	}
}

// filesUnder lists the regular files under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
