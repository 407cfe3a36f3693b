package e2e_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestPytestCassettePerTest runs examples/pytest under the real CLI: its
// conftest.py fixture gives every test its own cassette through the
// control API, in record and in replay.
func TestPytestCassettePerTest(t *testing.T) {
	python := pythonWithPytest(t)
	perTestCassettes(t, []string{python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "examples/pytest"},
		[]string{"test_weather/test_paris", "test_weather/test_city[Tokyo]", "test_weather/test_city[Lima]"},
		"test_weather/test_paris")
}

// TestNodeTestCassettePerTest runs examples/node under the real CLI: a
// beforeEach names each node:test test's cassette.
func TestNodeTestCassettePerTest(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	perTestCassettes(t, []string{node, "--test", "examples/node/weather.test.mjs"},
		[]string{"weather/answers about Paris", "weather/answers about Tokyo"},
		"weather/answers about Paris")
}

// TestADKJSHeadersNameTheCassette: an ADK JS agent whose model is
// new Gemini({model, headers}) with X-Adkproxy-Cassette records into, and
// replays from, the cassette the header names (docs/sidecar.md, ADK JS).
func TestADKJSHeadersNameTheCassette(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireADK(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	const name = "suite/adk weather"

	rec := runAdkproxy(t, root, bin, adkEnv("GOOGLE_API_KEY="+testutil.SecretAPIKey, "AGENT_CASSETTE="+name),
		"record", "--cassettes", dir, "--upstream", up.URL, "--", node, adkAgent)
	if rec.code != 0 {
		t.Fatalf("record exited %d; stderr:\n%s", rec.code, rec.stderr)
	}
	rel, _ := cassettes.FileName(name)
	files := filesUnder(t, dir)
	if len(files) != 1 || files[0] != filepath.Join(dir, rel) {
		t.Fatalf("recorded %v, want only %s", files, rel)
	}
	up.Close()
	replayAsRecorded(t, root, bin, adkEnv("AGENT_CASSETTE="+name), dir, parseScenario(t, "record", rec.stdout), node, adkAgent)
}

// perTestCassettes records command, requires one cassette per name and
// nothing in the default cassette, replays it strictly, then replays it
// with the Paris question changed and requires the failure to name the
// cassette of that test (changed).
func perTestCassettes(t *testing.T, command, names []string, changed string) {
	t.Helper()
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	env := childEnv("PYTHONDONTWRITEBYTECODE=1")

	rec := runAdkproxy(t, root, bin, append(env, "GOOGLE_API_KEY="+testutil.SecretAPIKey),
		append([]string{"record", "--cassettes", dir, "--upstream", up.URL, "--"}, command...)...)
	if rec.code != 0 {
		t.Fatalf("record exited %d; stdout:\n%s\nstderr:\n%s", rec.code, rec.stdout, rec.stderr)
	}
	for _, name := range names {
		rel, _ := cassettes.FileName(name)
		c, err := cassettes.Load(filepath.Join(dir, rel))
		if err != nil {
			t.Errorf("test %q has no cassette of its own: %v", name, err)
			continue
		}
		if len(c.Exchanges) != 1 || c.Name != name {
			t.Errorf("cassette %s: name %q, %d exchanges; want %q with its test's one request", rel, c.Name, len(c.Exchanges), name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, cassettes.DefaultName+cassettes.Extension)); err == nil {
		t.Error("a request went to the default cassette")
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key is in the cassettes %d times", n)
	}
	if t.Failed() {
		t.FailNow()
	}
	up.Close()

	rep := runAdkproxy(t, root, bin, env, append([]string{"replay", "--cassettes", dir, "--"}, command...)...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "0 mismatched, 0 unmatched, 0 recording(s) unused") {
		t.Errorf("strict replay exited %d; stdout:\n%s\nstderr:\n%s", rep.code, rep.stdout, rep.stderr)
	}

	bad := runAdkproxy(t, root, bin, append(env, "WEATHER_QUESTION=What is the weather in Paris today?"),
		append([]string{"replay", "--cassettes", dir, "--"}, command...)...)
	if bad.code == 0 || !strings.Contains(bad.stderr, `cassette "`+changed+`"`) || !strings.Contains(bad.stderr, "Paris today") {
		t.Errorf("replay of a changed test exited %d, want a failure naming cassette %q and the change; stderr:\n%s", bad.code, changed, bad.stderr)
	}
}

// pythonWithPytest finds a python3 that can import pytest: the one in
// ADKPROXY_TEST_PYTHON, else python3 on PATH, else Debian's /usr/bin/python3
// (where apt's python3-pytest goes when PATH has another python3, e.g.
// pyenv's). Without one the test is skipped, also under CI: Python is not
// among the tools the CI machine provides.
func pythonWithPytest(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("ADKPROXY_TEST_PYTHON"), "python3", "/usr/bin/python3"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import pytest").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with pytest (tried ADKPROXY_TEST_PYTHON, python3 on PATH, /usr/bin/python3); install it with pip install pytest or apt-get install python3-pytest")
	return ""
}
