package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// debianPytest is where Debian's python3-pytest puts pytest and what it
// imports, for Debian's python3; the ADK for Python tests run under the
// machine's default python3 (pydantic 2), which gets only these folders.
const debianPytest = "/usr/lib/python3/dist-packages"

// pytestPath links Debian's pytest and its imports into a folder of their
// own, so that ADK for Python's python3 can import pytest without
// Debian's dist-packages shadowing its pydantic.
func pytestPath(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(debianPytest, "pytest")); err != nil {
		testutil.Require(t, "Debian's python3-pytest (apt-get install python3-pytest)")
	}
	dir := t.TempDir()
	for _, name := range []string{"_pytest", "pytest", "pluggy", "iniconfig", "py", "py.py", "attr", "attrs", "packaging"} {
		if _, err := os.Stat(filepath.Join(debianPytest, name)); err == nil {
			if err := os.Symlink(filepath.Join(debianPytest, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// installPytestPlugin lays integrations/pytest out in site as an install
// does: the package and a dist-info whose entry point is the one
// pyproject.toml declares, read with Python's own TOML reader. pytest then
// loads the plugin by that entry point, with no -p.
func installPytestPlugin(t *testing.T, py, root, site string) {
	t.Helper()
	src := filepath.Join(root, "integrations", "pytest")
	out, err := exec.Command(py, "-c", `
import os, shutil, sys, tomllib
src, site = sys.argv[1], sys.argv[2]
meta = tomllib.load(open(os.path.join(src, "pyproject.toml"), "rb"))["project"]
shutil.copytree(os.path.join(src, "src", "pytest_adkproxy"), os.path.join(site, "pytest_adkproxy"))
info = os.path.join(site, meta["name"].replace("-", "_") + "-" + meta["version"] + ".dist-info")
os.makedirs(info)
open(os.path.join(info, "METADATA"), "w").write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (meta["name"], meta["version"]))
eps = meta["entry-points"]["pytest11"]
open(os.path.join(info, "entry_points.txt"), "w").write("[pytest11]\n" + "".join("%s = %s\n" % kv for kv in eps.items()))
`, src, site).CombinedOutput()
	if err != nil {
		t.Fatalf("installing integrations/pytest: %v\n%s", err, out)
	}
}

// TestPytestPluginADKPython runs the pytest plugin (integrations/pytest)
// on an ADK for Python agent's tests: recorded from adkproxy fake, replayed
// with the fake stopped (by the proxy the plugin starts, and under
// 'adkproxy replay -- pytest'), then one test changed: that test alone
// fails, naming its own cassette and the field that changed.
func TestPytestPluginADKPython(t *testing.T) {
	t.Parallel()
	adk := testutil.SharedDir(t, "vendor", "adk-python")
	py, err := exec.LookPath("python3")
	if err != nil {
		testutil.Require(t, "python3")
	}
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	site := filepath.Join(work, "site")
	installPytestPlugin(t, py, root, site)
	proj := filepath.Join(work, "project")
	if err := os.CopyFS(proj, os.DirFS(filepath.Join(root, "e2e", "pytestplugin"))); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "ADKPROXY_BIN="+bin,
		"PYTHONPATH="+strings.Join([]string{site, pytestPath(t), adk}, string(os.PathListSeparator)),
		"GOOGLE_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_GEMINI_BASE_URL=", "ADKPROXY_URL=")
	pytest := func(args ...string) (string, int) {
		cmd := exec.Command(py, append([]string{"-m", "pytest", "-q", "-p", "no:cacheprovider"}, args...)...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		return string(out), exitStatus(t, err)
	}

	fake, stopFake := startStoppableFake(t, bin, filepath.Join(proj, "script.yaml"))
	if out, code := pytest("--adkproxy-record", "--adkproxy-upstream="+fake); code != 0 || !strings.Contains(out, "3 passed") {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	for _, c := range []string{"test_agent/test_weather.yaml", "test_agent/test_weather_then_time.yaml", "shared/lisbon.yaml"} {
		if !fileContains(filepath.Join(proj, "cassettes", c), "get_weather") {
			t.Fatalf("cassette %s is missing or holds no get_weather call", c)
		}
	}
	stopFake()

	if out, code := pytest(); code != 0 || !strings.Contains(out, "3 passed") {
		t.Fatalf("replay by the plugin's own proxy, fake stopped: exit %d\n%s", code, out)
	}
	wrapped := exec.Command(bin, "replay", "--cassettes", "cassettes", "--", py, "-m", "pytest", "-q", "-p", "no:cacheprovider")
	wrapped.Dir, wrapped.Env = proj, env
	if out, err := wrapped.CombinedOutput(); err != nil || !strings.Contains(string(out), "3 passed") {
		t.Fatalf("adkproxy replay -- pytest: %v\n%s", err, out)
	}

	test := filepath.Join(proj, "test_agent.py")
	text, _ := os.ReadFile(test)
	changed := strings.Replace(string(text), `"What time is it in Lisbon?"`, `"What time is it in Porto?"`, 1)
	if changed == string(text) {
		t.Fatal("the test file no longer asks the time in Lisbon")
	}
	os.WriteFile(test, []byte(changed), 0o644)
	out, code := pytest()
	if code != 1 {
		t.Fatalf("replay after the change: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"FAILED test_agent.py::test_weather_then_time",
		"did not match cassette 'test_agent/test_weather_then_time'",
		`recorded "What time is it in Lisbon?", got "What time is it in Porto?"`,
		"2 passed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if regexp.MustCompile(`FAILED test_agent.py::test_(weather|named_cassette)\b[^_]`).MatchString(out) {
		t.Errorf("an unchanged test failed too")
	}
	if t.Failed() {
		t.Logf("pytest said:\n%s", out)
	}

	// A new test marked mode="record" records its own cassette while the
	// rest of the session replays, and leaves the others as they were.
	before, _ := os.ReadFile(filepath.Join(proj, "cassettes", "test_agent", "test_weather.yaml"))
	os.WriteFile(test, []byte(string(text)+`

@pytest.mark.adkproxy(mode="record")
def test_recorded_on_its_own():
    assert "sunny" in asyncio.run(ask(WEATHER))
`), 0o644)
	fake, _ = startStoppableFake(t, bin, filepath.Join(proj, "script.yaml"))
	if out, code := pytest("--adkproxy-upstream=" + fake); code != 0 || !strings.Contains(out, "4 passed") {
		t.Fatalf("a session replaying with one test marked record: exit %d\n%s", code, out)
	}
	if !fileContains(filepath.Join(proj, "cassettes", "test_agent", "test_recorded_on_its_own.yaml"), "get_weather") {
		t.Error("the test marked record wrote no cassette")
	}
	if after, _ := os.ReadFile(filepath.Join(proj, "cassettes", "test_agent", "test_weather.yaml")); string(after) != string(before) {
		t.Error("a replayed test's cassette changed")
	}
}

// exitStatus is a finished command's exit status (0 for a nil error); an
// error other than a non-zero exit fails the test.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestPytestPluginControlIgnoresEnvProxy: the environment names an HTTP
// proxy (HTTP_PROXY and http_proxy, no NO_PROXY), as on a machine behind a
// company proxy. The plugin's control calls to the adkproxy on loopback go
// to that adkproxy, never through the environment's proxy, which would get
// the control token: the proxy here counts what it gets and must get
// nothing, both when the plugin starts its own adkproxy and under
// 'adkproxy replay --no-forward-proxy --control-token -- pytest'.
func TestPytestPluginControlIgnoresEnvProxy(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		testutil.Require(t, "python3")
	}
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	site := filepath.Join(work, "site")
	installPytestPlugin(t, py, root, site)
	proj := filepath.Join(work, "project")
	os.MkdirAll(filepath.Join(proj, "cassettes"), 0o755)
	os.WriteFile(filepath.Join(proj, "test_quiet.py"), []byte("def test_quiet():\n    assert True\n"), 0o644)

	var mu sync.Mutex
	var got []string
	envProxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.String()+" Authorization="+r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "the environment's proxy", http.StatusBadGateway)
	}))
	defer envProxy.Close()
	var env []string
	for _, kv := range childEnv() {
		if k, _, _ := strings.Cut(kv, "="); !strings.EqualFold(k, "no_proxy") && !strings.EqualFold(k, "http_proxy") &&
			!strings.EqualFold(k, "https_proxy") && !strings.EqualFold(k, "all_proxy") {
			env = append(env, kv)
		}
	}
	env = append(env, "ADKPROXY_BIN="+bin, "PYTHONPATH="+site+string(os.PathListSeparator)+pytestPath(t),
		"HTTP_PROXY="+envProxy.URL, "http_proxy="+envProxy.URL, "GOOGLE_GEMINI_BASE_URL=")
	pytest := []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider"}
	for _, run := range []struct {
		name string
		argv []string
		env  []string
	}{
		{"the plugin's own adkproxy", pytest, nil},
		{"adkproxy replay -- pytest", append([]string{bin, "replay", "--cassettes", "cassettes", "--no-forward-proxy", "--"}, pytest...),
			[]string{"ADKPROXY_CONTROL_TOKEN=control-secret"}},
	} {
		cmd := exec.Command(run.argv[0], run.argv[1:]...)
		cmd.Dir, cmd.Env = proj, append(env, run.env...)
		out, err := cmd.CombinedOutput()
		if code := exitStatus(t, err); code != 0 || !strings.Contains(string(out), "1 passed") {
			t.Errorf("%s: exit %d\n%s", run.name, code, out)
		}
		mu.Lock()
		if len(got) > 0 {
			t.Errorf("%s: the environment's proxy got the plugin's control calls:\n%s", run.name, strings.Join(got, "\n"))
		}
		got = nil
		mu.Unlock()
	}
}
