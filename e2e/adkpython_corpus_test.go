package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"github.com/adkproxy/adkproxy/internal/base/freeport"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/adk/conformancerun"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

var updateADKPythonCorpus = flag.Bool("update-adkpython-corpus", false, "rewrite "+goldenADKPython+" from this run")

// goldenADKPython is the checked-in outcome of the shared corpus against
// ADK Python 1.18's API server: each case on the wire (adkproxy's verdict
// and the request groups with findings), and beside it the verdict of ADK
// Python's own in-process ReplayPlugin on the same recordings.
const goldenADKPython = "adkpython_corpus/results.json"

// pythonServerCmd is conformance's --server-cmd for ADK Python's API
// server. PYTHONHASHSEED fixes str hashing, which the corpus's get_user_id
// tool uses, so every run gets the same result (still not the recorded one).
const pythonServerCmd = "PYTHONHASHSEED=0 exec python3 -m google.adk.cli api_server {agents_dir} --host 127.0.0.1 --port {port}"

// pythonCaseOutcome is one case's wire verdict with ReplayPlugin's.
type pythonCaseOutcome struct {
	Name         string                `json:"name"`
	Agent        string                `json:"agent"`
	Status       conformancerun.Status `json:"status"`
	Reason       string                `json:"reason,omitempty"`
	Findings     []string              `json:"finding_groups,omitempty"`
	ReplayPlugin pythonVerdict         `json:"replay_plugin"`
}

type pythonVerdict struct {
	Status conformancerun.Status `json:"status"`
	Reason string                `json:"reason,omitempty"`
}

// runDependent masks what differs from run to run in a reason: ports and
// temporary folders.
var runDependent = regexp.MustCompile(`127\.0\.0\.1:\d+|/[^ ']*/adkproxy-conformance-\d+|/[^ ']*/replay-plugin-\d+`)

func stable(s string) string {
	return runDependent.ReplaceAllStringFunc(s, func(m string) string {
		if m[0] == '1' {
			return "127.0.0.1:PORT"
		}
		return "WORK"
	})
}

// TestCorpusAgainstADKPython runs the shared corpus against ADK for
// Python's `adk api_server` (the vendored 1.18) through the real binary's
// conformance command three times, at once, offline and with no key; every
// run must give the same results. Beside it, ADK Python's own
// ConformanceTestRunner replays each case in the server's process with
// its ReplayPlugin. Both are checked against the checked-in outcome, whose
// every difference docs/conformance.md explains; -update-adkpython-corpus
// rewrites it.
func TestCorpusAgainstADKPython(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	py := requireADKPython(t)
	adkproxy := testutil.BuildAdkproxy(t)
	env := append(os.Environ(), "PYTHONPATH="+py.path, "GOOGLE_API_KEY=", "GEMINI_API_KEY=")
	cases, err := conformance.Cases(corpus)
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]*conformancerun.Result, 3)
	plugin := map[string]pythonVerdict{}
	t.Run("runs", func(t *testing.T) {
		for i := range runs {
			t.Run("wire"+strconv.Itoa(i+1), func(t *testing.T) {
				t.Parallel()
				runs[i] = pythonConformance(t, adkproxy, corpus, env)
			})
		}
		t.Run("replay_plugin", func(t *testing.T) {
			t.Parallel()
			plugin = replayPluginVerdicts(t, py, corpus, cases, env)
		})
	})
	if t.Failed() {
		return
	}
	var outcomes [3][]pythonCaseOutcome
	for i, res := range runs {
		for _, c := range res.Cases {
			outcomes[i] = append(outcomes[i], pythonCaseOutcome{
				Name: c.Name, Agent: c.Agent, Status: c.Status, Reason: stable(c.Reason),
				Findings: findingGroups(c), ReplayPlugin: plugin[c.Name],
			})
		}
	}
	got, err := json.MarshalIndent(outcomes[0], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	for i := 1; i < 3; i++ {
		other, _ := json.MarshalIndent(outcomes[i], "", "  ")
		if !bytes.Equal(append(other, '\n'), got) {
			t.Errorf("run %d differs from run 1:\n%s\nrun 1:\n%s", i+1, other, got)
		}
	}
	if *updateADKPythonCorpus {
		if err := os.WriteFile(goldenADKPython, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenADKPython)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gotFile := filepath.Join(testutil.OutDir(t), "adkpython-corpus-results.json")
		_ = os.WriteFile(gotFile, got, 0o644)
		t.Errorf("the results differ from %s (this run's are in %s; go test -run %s -update-adkpython-corpus rewrites it)\n%s", goldenADKPython, gotFile, t.Name(), got)
	}
	for _, o := range outcomes[0] {
		t.Logf("%-34s wire %-4s ReplayPlugin %-4s %s", o.Name, o.Status, o.ReplayPlugin.Status, o.Reason)
	}
}

// pythonConformance runs adkproxy conformance against ADK Python's API
// server and returns its JSON result.
func pythonConformance(t *testing.T, adkproxy, corpus string, env []string) *conformancerun.Result {
	t.Helper()
	argv := []string{"conformance", "--corpus", corpus, "--server-cmd", pythonServerCmd, "--format", "json"}
	cmd := exec.CommandContext(t.Context(), adkproxy, argv...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 76) {
		t.Fatalf("adkproxy %v: %v\nstderr:\n%s", argv, err, stderr.String())
	}
	var res conformancerun.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("adkproxy conformance --format json: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return &res
}

// findingGroups are the request groups in which some model call of the
// case differs from its recording.
func findingGroups(c conformancerun.CaseResult) []string {
	var groups []string
	for _, call := range c.Calls {
		for _, f := range call.Findings {
			if !slices.Contains(groups, f.Group) {
				groups = append(groups, f.Group)
			}
		}
	}
	slices.Sort(groups)
	return groups
}

// replayPluginVerdicts runs every case through ADK Python's own
// ConformanceTestRunner (adkpython_corpus/replay_plugin.py) against an API
// server with the ReplayPlugin loaded, the model endpoint pointing nowhere.
func replayPluginVerdicts(t *testing.T, py adkPython, corpus string, cases []conformance.Case, env []string) map[string]pythonVerdict {
	t.Helper()
	work, err := os.MkdirTemp("", "replay-plugin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(work) })
	agents := filepath.Join(work, "agents")
	if err := os.CopyFS(agents, os.DirFS(filepath.Join(corpus, "agents"))); err != nil {
		t.Fatal(err)
	}
	port := freeTCPPort(t)
	server := exec.Command(py.python, "-m", "google.adk.cli", "api_server", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--extra_plugins", "google.adk.cli.plugins.replay_plugin.ReplayPlugin", agents)
	server.Env = append(env, "PYTHONHASHSEED=0", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9", "GOOGLE_API_KEY=replay-plugin-sends-nothing")
	var out bytes.Buffer
	server.Stdout, server.Stderr = &out, &out
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = server.Wait(); close(exited) }()
	defer func() { _ = server.Process.Kill(); <-exited }()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	client, err := adkapi.New(base, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := client.WaitUp(ctx, exited); err != nil {
		t.Fatalf("adk api_server did not start: %v\n%s", err, out.String())
	}
	args := []string{filepath.Join("adkpython_corpus", "replay_plugin.py"), base, filepath.Join(work, "verdicts.json")}
	for _, c := range cases {
		args = append(args, c.Dir)
	}
	driver := exec.CommandContext(t.Context(), py.python, args...)
	driver.Env = env
	if b, err := driver.CombinedOutput(); err != nil {
		t.Fatalf("replay_plugin.py: %v\n%s\nserver:\n%s", err, b, out.String())
	}
	raw, err := os.ReadFile(filepath.Join(work, "verdicts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var results []struct {
		Name    string `json:"name"`
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal(raw, &results); err != nil {
		t.Fatalf("verdicts.json: %v\n%s", err, raw)
	}
	verdicts := map[string]pythonVerdict{}
	for _, r := range results {
		v := pythonVerdict{Status: conformancerun.Pass}
		if !r.Success {
			v = pythonVerdict{Status: conformancerun.Fail, Reason: stable(r.Error)}
		}
		verdicts[r.Name] = v
	}
	if len(verdicts) != len(cases) {
		t.Fatalf("ReplayPlugin judged %d cases of %d:\n%s", len(verdicts), len(cases), raw)
	}
	return verdicts
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	port, err := freeport.Pick()
	if err != nil {
		t.Fatal(err)
	}
	return port
}
