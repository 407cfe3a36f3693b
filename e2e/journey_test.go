package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestFirstTenMinutes walks a new user's journey with the documented
// commands only: install adkproxy with 'go install', record an ADK Go agent
// with two function tools and a sub-agent from a local fake with no key,
// replay it, refactor a tool (its temperature becomes a computed number),
// see replay fail on it (the agent gets an error naming the field), record again, diff the runs (flags after the paths)
// with the numeric change shown, and score the new run against the old.
func TestFirstTenMinutes(t *testing.T) {
	root := testutil.RepoRoot()
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	goTool(t, root, []string{"GOBIN=" + bin}, "install", "./cmd/adkproxy") // README: Install
	env := append(childEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(args ...string) result {
		t.Helper()
		return runAdkproxy(t, work, filepath.Join(bin, "adkproxy"), env, args...)
	}
	if v := run("--version"); v.code != 0 || !strings.HasPrefix(v.stdout, "adkproxy version ") {
		t.Fatalf("--version: exit %d, %q", v.code, v.stdout)
	}

	// The user's agent: ADK Go's example, its weather tool returning a number.
	v1 := buildAgent(t, root, work, "v1", `TempC: 21`)
	v2 := buildAgent(t, root, work, "v2", `TempC: (70.0 - 32) * 5 / 9`) // the refactor: computed from Fahrenheit
	script := filepath.Join(root, "examples", "adkgo", "script.yaml")

	record := func(dir, agent string) {
		t.Helper()
		fake := startFake(t, filepath.Join(bin, "adkproxy"), script)
		rec := run("record", "--cassettes", dir, "--upstream", fake, "--", agent) // no key anywhere
		if rec.code != 0 || !strings.Contains(rec.stderr, "recorded 4 exchange(s)") {
			t.Fatalf("record %s: exit %d\nstdout %s\nstderr %s", dir, rec.code, rec.stdout, rec.stderr)
		}
	}
	record("run1", v1)
	if r := run("replay", "--cassettes", "run1", "--", v1); r.code != 0 || !strings.Contains(r.stderr, "4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") ||
		!strings.Contains(r.stdout, "packing_advisor: Light layers") {
		t.Fatalf("replay: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	caught := run("replay", "--cassettes", "run1", "--", v2)
	if caught.code == 0 || !strings.Contains(caught.stderr, "functionResponse.response.temp_c: recorded 21, got 21.11111111111111") {
		t.Errorf("replay after the refactor: exit %d, want a failure naming temp_c\n%s", caught.code, caught.stderr)
	}

	record("run2", v2)
	d := run("diff", "run1", "run2")
	if d.code != 0 || !strings.Contains(d.stdout, "temp_c: 21 → 21.11111111111111") {
		t.Errorf("diff: exit %d\nstdout %s\nstderr %s", d.code, d.stdout, d.stderr)
	}
	if h := run("diff", "run1", "run2", "--format", "html", "--out", "diff.html"); h.code != 0 || !fileContains(filepath.Join(work, "diff.html"), "21.11111111111111") {
		t.Errorf("diff --format html: exit %d\n%s", h.code, h.stderr)
	}

	if e := run("export", "run1", "--out", "golden.evalset.json"); e.code != 0 {
		t.Fatalf("export: exit %d\n%s", e.code, e.stderr)
	}
	s := run("score", "run2", "--expected", "golden.evalset.json")
	if s.code != 0 || !strings.Contains(s.stdout, "tool_trajectory_avg_score") || !strings.Contains(s.stdout, "PASSED: 1 of 1 case passed") {
		t.Errorf("score: exit %d\nstdout %s\nstderr %s", s.code, s.stdout, s.stderr)
	}
}

// buildAgent builds examples/adkgo with its weather tool's result given a
// temp_c of value, in a copy under work, and returns the binary.
func buildAgent(t *testing.T, root, work, name, value string) string {
	t.Helper()
	src, dir := filepath.Join(root, "examples", "adkgo"), filepath.Join(work, name+"-src")
	os.MkdirAll(dir, 0o755)
	for _, f := range []string{"main.go", "agent.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		switch f {
		case "go.mod":
			text = strings.Replace(text, "=> ../..", "=> "+root, 1)
		case "agent.go":
			for old, new := range map[string]string{
				"\tForecast string `json:\"forecast\"`\n": "\tForecast string `json:\"forecast\"`\n\tTempC float64 `json:\"temp_c\"`\n",
				"weather{City: a.City, Forecast: f}, nil": "weather{City: a.City, Forecast: f, " + value + "}, nil",
			} {
				if !strings.Contains(text, old) {
					t.Fatalf("examples/adkgo/agent.go no longer has %q", old)
				}
				text = strings.Replace(text, old, new, 1)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(work, "agent-"+name)
	goTool(t, dir, nil, "build", "-o", out, ".")
	return out
}

func goTool(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// startFake serves script with 'adkproxy fake' until the test ends and
// returns its base URL.
func startFake(t *testing.T, bin, script string) string {
	url, _ := startStoppableFake(t, bin, script)
	return url
}

// startStoppableFake is startFake with a function that stops the fake
// early (and waits for it), for a replay that must find nothing listening.
func startStoppableFake(t *testing.T, bin, script string) (string, func()) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	fake := exec.Command(bin, "fake", "--script", script, "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { fake.Process.Signal(os.Interrupt); fake.Wait() }) }
	t.Cleanup(stop)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if addr, _ := os.ReadFile(addrFile); len(addr) > 0 {
			return "http://" + strings.TrimSpace(string(addr)), stop
		}
	}
	t.Fatal("adkproxy fake did not write its address")
	return "", stop
}

func fileContains(path, text string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), text)
}

// TestReadmeGoGetWithReplace runs the README's commands for using
// adkproxytest from another module while adkproxy is not published: a test
// that imports it then builds.
func TestReadmeGoGetWithReplace(t *testing.T) {
	root := testutil.RepoRoot()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var steps [][]string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "go mod edit -replace github.com/adkproxy/adkproxy=") || strings.HasPrefix(line, "go get github.com/adkproxy/adkproxy") {
			command, _, _ := strings.Cut(line, "#")
			steps = append(steps, strings.Fields(strings.ReplaceAll(command, "=../adkproxy", "="+root))[1:])
		}
	}
	if len(steps) != 2 {
		t.Fatalf("the README's install section has %d of the two go commands for adkproxytest", len(steps))
	}
	mod := t.TempDir()
	goTool(t, mod, nil, "mod", "init", "example.com/myagent")
	os.WriteFile(filepath.Join(mod, "agent_test.go"), []byte(`package myagent

import (
	"testing"

	"github.com/adkproxy/adkproxy/adkproxytest"
)

func TestAgent(t *testing.T) { _ = adkproxytest.Start(t, "testdata/cassettes").ClientConfig() }
`), 0o644)
	for _, step := range steps {
		goTool(t, mod, nil, step...)
	}
	goTool(t, mod, []string{"GOFLAGS=-mod=mod"}, "vet", "./...")
}
