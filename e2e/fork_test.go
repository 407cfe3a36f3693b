package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// byModel is a scripted fake that answers each model from a script of its
// own and counts the calls each model got.
type byModel struct {
	mu      sync.Mutex
	calls   map[string]int
	scripts map[string]http.Handler
}

func newByModel(t *testing.T, scripts map[string]string) *byModel {
	t.Helper()
	b := &byModel{calls: map[string]int{}, scripts: map[string]http.Handler{}}
	for model, text := range scripts {
		s, err := fake.ParseScript(model+".yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		b.scripts[model] = fake.New(s)
	}
	return b
}

func (b *byModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	model, _ := wire.ModelCallModel(r.URL.Path)
	b.mu.Lock()
	b.calls[model]++
	h := b.scripts[model]
	b.mu.Unlock()
	if h == nil {
		http.Error(w, "no script for model "+model, http.StatusNotFound)
		return
	}
	h.ServeHTTP(w, r)
}

func (b *byModel) count(model string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[model]
}

// proScript: the second model answers the packing question itself, with
// no transfer to the packing advisor.
const proScript = "turns:\n  - model:\n      - text: Just bring an umbrella.\n"

// TestForkADKGoOntoAnotherModel forks the shipped ADK Go example's
// recording at its second turn onto another model, twice (--samples 2),
// against a fake that answers that model differently: the report shows the
// transfer gone, the new answer, the model change and the score delta, and
// the fake never saw a call before the fork point (no gemini-2.5-flash
// call at all). An agent that differs before the fork point is refused,
// exit 76, still with nothing sent.
func TestForkADKGoOntoAnotherModel(t *testing.T) {
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	agent := filepath.Join(work, "adkgo")
	goTool(t, filepath.Join(root, "examples", "adkgo"), nil, "build", "-o", agent, ".")
	flash, err := os.ReadFile(filepath.Join(root, "examples", "adkgo", "script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	up := newByModel(t, map[string]string{"gemini-2.5-flash": string(flash), "gemini-2.5-pro": proScript})
	srv := httptest.NewServer(up)
	defer srv.Close()
	dir := filepath.Join(work, "cassettes")
	copyDir(t, filepath.Join(root, "examples", "adkgo", "cassettes"), dir)
	example := filepath.Join(root, "examples", "adkgo")
	fork := func(agent string, extra ...string) result {
		args := append([]string{"fork", "--cassettes", dir, "--at", "1/2/0", "--model", "gemini-2.5-pro", "--upstream", srv.URL,
			"--expected", filepath.Join(example, "trip.evalset.json"), "--config", filepath.Join(example, "eval_config.json")}, extra...)
		return runAdkproxy(t, work, bin, childEnv(), append(args, "--", agent)...)
	}
	r := fork(agent, "--samples", "2")
	if r.code != 0 {
		t.Fatalf("fork: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if n := up.count("gemini-2.5-flash"); n != 0 {
		t.Errorf("the fake got %d calls of the recorded model: the exchanges before the fork point must come from the recording", n)
	}
	if n := up.count("gemini-2.5-pro"); n != 2 {
		t.Errorf("the fake got %d calls of the new model, want one per sample (2)", n)
	}
	for _, want := range []string{
		`FORK cassette "default" at 1/2/0 (session 1, invocation 2, step 0): model gemini-2.5-pro`,
		"VARIANT default@1", "VARIANT default@2",
		"2 model call(s) replayed from the recording, 1 sent upstream",
		"verdict: PASSED → FAILED",
		"tool_trajectory_avg_score: 1 → 0.5 (-0.5)",
		"response_match_score: 1 → ",
		"1 tool removed, 1 response changed, 1 model changed",
		"- trip_planner: transfer_to_agent(agent_name=\"packing_advisor\")",
		"{+Just bring an umbrella.+}",
		"model: gemini-2.5-flash → gemini-2.5-pro",
		"model calls 4 → 3",
	} {
		if strings.Count(r.stdout, want) < 1 {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	if ls := runAdkproxy(t, work, bin, childEnv(), "ls", "--cassettes", dir+".fork"); !strings.Contains(ls.stdout, "default@2") || !strings.Contains(ls.stdout, "Just bring an umbrella.") {
		t.Errorf("the fork's cassettes: %s", ls.stdout)
	}

	// An agent whose weather tool now answers with one more field differs
	// from the recording in invocation 1, before the fork point.
	changed := buildAgent(t, root, work, "v2", `TempC: 21`)
	bad := fork(changed, "--out", filepath.Join(work, "bad.fork"))
	if bad.code != 76 || !strings.Contains(bad.stderr, "differs from the recording before the fork point") {
		t.Errorf("an agent that differs before the fork: exit %d, want 76\nstderr %s", bad.code, bad.stderr)
	}
	if n := up.count("gemini-2.5-flash"); n != 0 {
		t.Errorf("the differing call before the fork point reached the fake (%d calls)", n)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
