package adkgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/adkproxy/adkproxy/internal/base/freeport"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/adk/conformancerun"
	"github.com/adkproxy/adkproxy/internal/feature/adk/drive"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/adkgo-results.json from this run")

// goldenADKGo is the checked-in outcome of the shared corpus against ADK
// Go 1.7.0's conformance server: each case on the wire, and beside it the
// verdict of ADK Go's own in-process replay.
const goldenADKGo = "testdata/adkgo-results.json"

// caseOutcome is one case's wire result with the in-process verdict.
type caseOutcome struct {
	conformancerun.CaseResult
	InProcess verdict `json:"in_process"`
}

type verdict struct {
	Status conformancerun.Status `json:"status"`
	Reason string                `json:"reason,omitempty"`
}

// buildADKCLI builds ADK Go's conformance server from this module, which
// requires google.golang.org/adk v1.7.0 (a main under cmd/internal builds by
// path though it cannot be imported).
func buildADKCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "adkcli")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "google.golang.org/adk/cmd/internal/adkcli").CombinedOutput(); err != nil {
		t.Fatalf("go build adkcli: %v\n%s", err, out)
	}
	return bin
}

// TestMain removes the adkproxy binary the tests share when they end.
func TestMain(m *testing.M) {
	if serveMCPIfAsked() {
		return
	}
	testutil.Main(m)
}

// serverCmd is the --server-cmd for adkcli: it serves the agents of its
// working folder under /adkapi.
func serverCmd(adkcli string) string {
	return "cd {agents_dir} && exec '" + adkcli + "' web -port {port} api"
}

// conformanceCLI runs the real binary's conformance command against adkcli
// and returns its JSON result.
func conformanceCLI(t *testing.T, adkproxy, adkcli, corpus string, args ...string) *conformancerun.Result {
	t.Helper()
	argv := append([]string{"conformance", "--corpus", corpus, "--prefix", "/api", "--server-cmd", serverCmd(adkcli), "--format", "json"}, args...)
	cmd := exec.CommandContext(t.Context(), adkproxy, argv...)
	cmd.Env = append(os.Environ(), "GOOGLE_API_KEY=", "GEMINI_API_KEY=")
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

// TestCorpusAgainstADKGo runs the shared corpus against ADK Go's
// conformance server three times on the wire (offline, no key) and once in
// process, and checks both against the checked-in expected outcome. Every
// run must give the same results. Run with -update to rewrite it after a
// deliberate change, and explain every difference in docs/conformance.md.
func TestCorpusAgainstADKGo(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	adkcli := buildADKCLI(t)
	adkproxy := testutil.BuildAdkproxy(t)
	var first []byte
	var res *conformancerun.Result
	for run := 1; run <= 3; run++ {
		res = conformanceCLI(t, adkproxy, adkcli, corpus)
		got, _ := json.Marshal(res.Cases)
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Errorf("run %d differs from run 1:\n%s\nrun 1:\n%s", run, got, first)
		}
	}
	cases, err := conformance.Cases(corpus)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]conformance.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	var outcomes []caseOutcome
	for _, c := range res.Cases {
		outcomes = append(outcomes, caseOutcome{CaseResult: c, InProcess: inProcess(t, adkcli, corpus, byName[c.Name])})
	}
	got, err := json.MarshalIndent(outcomes, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(goldenADKGo, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenADKGo)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gotFile := filepath.Join(testutil.OutDir(t), "adkgo-results.json")
		_ = os.WriteFile(gotFile, got, 0o644)
		t.Errorf("the results differ from %s (this run's are in %s; go test -run %s -update rewrites it)", goldenADKGo, gotFile, t.Name())
	}
	for _, o := range outcomes {
		t.Logf("%-34s wire %-4s in process %-4s %s", o.Name, o.Status, o.InProcess.Status, o.Reason)
	}
}

// TestParallelBranchesAgainstADKGo: ADK Go runs the parallel agent's
// branches at once; held to the recorded order, the case PASSes on every
// one of ten runs.
func TestParallelBranchesAgainstADKGo(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	adkcli := buildADKCLI(t)
	adkproxy := testutil.BuildAdkproxy(t)
	for run := 1; run <= 10; run++ {
		res := conformanceCLI(t, adkproxy, adkcli, corpus, "--cases", "workflow/parallel_001")
		if len(res.Cases) != 1 || res.Cases[0].Status != conformancerun.Pass {
			t.Fatalf("run %d: %+v", run, res.Cases)
		}
	}
}

// TestAgentThatCannotLoadIsSkipped: an agent whose YAML names a tool ADK Go
// has no port of is not listed by adkcli; the case is SKIPped quoting ADK
// Go's own load error, and nothing in the reason speaks of ADK-JS.
func TestAgentThatCannotLoadIsSkipped(t *testing.T) {
	shared := testutil.SharedDir(t, "fixtures", "adk-conformance")
	corpus := t.TempDir()
	agent := filepath.Join(corpus, "agents", "core_agent_001")
	if err := os.CopyFS(agent, os.DirFS(filepath.Join(shared, "agents", "core_agent_001"))); err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(filepath.Join(agent, "root_agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root = append(root, []byte("tools:\n  - name: no_such_module.no_such_tool\n")...)
	if err := os.WriteFile(filepath.Join(agent, "root_agent.yaml"), root, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(corpus, "tests", "core", "sys_instruction_001"), os.DirFS(filepath.Join(shared, "tests", "core", "sys_instruction_001"))); err != nil {
		t.Fatal(err)
	}
	res := conformanceCLI(t, testutil.BuildAdkproxy(t), buildADKCLI(t), corpus)
	if len(res.Cases) != 1 {
		t.Fatalf("cases = %+v", res.Cases)
	}
	c := res.Cases[0]
	if c.Status != conformancerun.Skip || !strings.Contains(c.Reason, "Error loading agent at") || strings.Contains(c.Reason, "adkjs") {
		t.Errorf("%s: %s (%s), want SKIP quoting ADK Go's load error", c.Name, c.Status, c.Reason)
	}
}

// replayConfig is the session state key that switches ADK Go's replay
// plugin on: the case folder (under the server's working folder) and the
// user message the run replays.
const replayConfig = "_adk_replay_config"

// inProcess runs a case through ADK Go's own replay plugin, through the REST
// API: the plugin answers every model and tool call from the recordings
// in process (the model endpoint points nowhere), strictly comparing each
// request, and the session is compared by ADK's rules with the replay
// configuration left out.
func inProcess(t *testing.T, adkcli, corpus string, c conformance.Case) verdict {
	t.Helper()
	spec, err := conformance.ReadSpec(filepath.Join(c.Dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := conformance.ReadSession(filepath.Join(c.Dir, c.Session))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, spec.Agent), os.DirFS(filepath.Join(corpus, "agents", spec.Agent))); err != nil {
		t.Fatal(err)
	}
	caseDir := filepath.Join(dir, "recordings")
	if err := os.CopyFS(caseDir, os.DirFS(c.Dir)); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command(adkcli, "web", "-port", strconv.Itoa(port), "api")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9", "GOOGLE_API_KEY=in-process-replay-sends-nothing")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() { _ = cmd.Process.Kill(); <-exited }()
	client, err := adkapi.New("http://127.0.0.1:"+strconv.Itoa(port), "/api")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := client.WaitUp(ctx, exited); err != nil {
		t.Fatalf("%s: adkcli did not start: %v\n%s", c.Name, err, out.String())
	}
	conv := drive.FromSpec(spec)
	config := func(i int) map[string]any {
		return map[string]any{replayConfig: map[string]any{"dir": caseDir, "user_message_index": i}}
	}
	conv.InitialState = merged(conv.InitialState, config(0))
	for i := range conv.Turns {
		conv.Turns[i].StateDelta = merged(conv.Turns[i].StateDelta, config(i))
	}
	d := &drive.Driver{Client: client, App: spec.Agent, User: conformancerun.User, Streaming: c.SSE}
	got, err := d.Drive(ctx, conv)
	if err != nil {
		return verdict{Status: conformancerun.Fail, Reason: strings.ReplaceAll(err.Error(), client.BaseURL, "http://127.0.0.1:PORT")}
	}
	session, err := withoutReplayConfig(got.Raw)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := conformance.CompareSession(session, want, conformance.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		return verdict{Status: conformancerun.Fail, Reason: strings.ReplaceAll(diff.Detail, c.Dir, "tests/"+c.Name)}
	}
	return verdict{Status: conformancerun.Pass}
}

func merged(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, b)
	return out
}

// withoutReplayConfig is a session with the replay configuration taken
// out of its state and every event's state delta: the recorded sessions
// were written without it.
func withoutReplayConfig(raw []byte) ([]byte, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the session is not JSON: %w", err)
	}
	if state, ok := s["state"].(map[string]any); ok {
		delete(state, replayConfig)
	}
	events, _ := s["events"].([]any)
	for _, e := range events {
		event, _ := e.(map[string]any)
		if actions, ok := event["actions"].(map[string]any); ok {
			if delta, ok := actions["stateDelta"].(map[string]any); ok {
				delete(delta, replayConfig)
			}
		}
	}
	return json.Marshal(s)
}

func freePort(t *testing.T) int {
	t.Helper()
	port, err := freeport.Pick()
	if err != nil {
		t.Fatal(err)
	}
	return port
}
