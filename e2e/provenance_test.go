package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// shippedExample is an example whose cassettes the repository ships, and
// how scripts/record-demo.sh records it again without a key.
type shippedExample struct {
	name     string   // examples/NAME/cassettes
	dir      string   // where the command runs
	command  []string // the agent
	env      []string
	upstream string
	// clients and frameworks are the tokens its stack sends, with the
	// versions the example pins (go.mod, the vendored ADK for Python) or
	// the runtime the test runs on.
	clients, frameworks []string
}

// TestShippedExamplesRecordProvenance records every shipped example as
// scripts/record-demo.sh does, through the real binary and local fakes
// (the ADK Go and ADK Python agents from 'adkproxy fake', the genai weather
// agent and the node:test suite of examples/compose from the tests'
// scripted Gemini), and reads the cassettes back with ls: each carries its
// provenance (time, adkproxy, the upstream's kind "local", the clients and
// frameworks with the versions the example's stack sends, the model asked
// for and the modelVersion answered), ls shows it in every format, and it
// holds neither the key nor the fake's address. The shipped cassettes
// carry provenance too, and ls reads them as it reads the fresh recording
// but for the time, adkproxy's build and the runtime's version.
func TestShippedExamplesRecordProvenance(t *testing.T) {
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	work := t.TempDir()
	adkgo := filepath.Join(work, "adkgo-agent")
	goTool(t, filepath.Join(root, "examples", "adkgo"), nil, "build", "-o", adkgo, ".")
	weather := filepath.Join(work, "weather-agent")
	goTool(t, root, nil, "build", "-o", weather, "./examples/weather")
	fakegemini := filepath.Join(work, "fakegemini")
	goTool(t, root, nil, "build", "-o", fakegemini, "./internal/testing/fakegemini/cmd/fakegemini")
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		testutil.Require(t, "python3")
	}
	adkPython := testutil.SharedDir(t, "vendor", "adk-python")

	const key = "AIzaSyPROVENANCE-e2e-key-0123456789ab"
	env := childEnv("GOOGLE_API_KEY=" + key)
	goRuntime := "gl-go/" + strings.TrimPrefix(runtime.Version(), "go")
	genaiGo := "google-genai-sdk/" + goModVersion(t, filepath.Join(root, "examples", "adkgo", "go.mod"), "google.golang.org/genai")
	pyVersion, err := exec.Command("python3", "-c", "import platform; print(platform.python_version())").Output()
	if err != nil {
		t.Fatal(err)
	}
	examples := []shippedExample{
		{name: "adkgo", dir: root, command: []string{adkgo},
			upstream:   startFake(t, bin, filepath.Join(root, "examples", "adkgo", "script.yaml")),
			clients:    []string{genaiGo, goRuntime},
			frameworks: []string{"google-adk/" + goModVersion(t, filepath.Join(root, "examples", "adkgo", "go.mod"), "google.golang.org/adk")}},
		{name: "weather", dir: root, command: []string{weather}, upstream: startFakeGemini(t, fakegemini),
			clients: []string{"google-genai-sdk/" + goModVersion(t, filepath.Join(root, "go.mod"), "google.golang.org/genai"), "gl-go/" + runtime.Version()}},
		{name: "adkpython", dir: filepath.Join(root, "examples", "adkpython"), command: []string{"python3", "main.py"},
			env:      []string{"PYTHONPATH=" + adkPython + string(os.PathListSeparator) + ".", "PYTHONDONTWRITEBYTECODE=1", "PYTHONWARNINGS=ignore"},
			upstream: startFake(t, bin, filepath.Join(root, "examples", "adkpython", "script.yaml")),
			clients: []string{"google-genai-sdk/" + pythonVersion(t, filepath.Join(adkPython, "google", "genai", "version.py")),
				"gl-python/" + strings.TrimSpace(string(pyVersion))},
			frameworks: []string{"google-adk/" + pythonVersion(t, filepath.Join(adkPython, "google", "adk", "version.py"))}},
		// Node's fetch sends "User-Agent: node", with no version.
		{name: "compose", dir: filepath.Join(root, "examples", "node"), command: []string{node, "--test", "weather.test.mjs"},
			upstream: startFakeGemini(t, fakegemini), clients: []string{"node"}},
	}
	noProvenance := filepath.Join(work, "old")
	copyDir(t, filepath.Join(root, "examples", "adkgo", "cassettes"), noProvenance)
	withoutProvenanceBlock(t, filepath.Join(noProvenance, "default.yaml"))
	if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "90d", noProvenance); r.code != 1 ||
		!strings.Contains(r.stdout, "recorded at an unknown time (no provenance)") {
		t.Errorf("ls --stale on a cassette without provenance: exit %d, want 1 listing it\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runAdkproxy(t, work, bin, env, "ls", noProvenance); r.code != 0 || !strings.Contains(r.stdout, "  provenance not recorded (written before adkproxy recorded it)\n") {
		t.Errorf("ls of a cassette without provenance: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "soon", root); r.code != 64 || !strings.Contains(r.stderr, `"soon" is not an age`) {
		t.Errorf("ls --stale soon: exit %d, want 64\n%s", r.code, r.stderr)
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			dir := filepath.Join(work, ex.name)
			shipped := filepath.Join(root, "examples", ex.name, "cassettes")
			args := append([]string{"record", "--cassettes", dir, "--upstream", ex.upstream, "--"}, ex.command...)
			if r := runAdkproxy(t, ex.dir, bin, append(slices.Clone(env), ex.env...), args...); r.code != 0 {
				t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
			}
			table := runAdkproxy(t, work, bin, env, "ls", dir)
			today := time.Now().UTC().Format("2006-01-02")
			want := []string{"  recorded " + today, " · upstream local · ", " · models gemini-2.5-flash\n"}
			want = append(want, ex.clients...)
			if len(ex.frameworks) > 0 {
				want = append(want, " · frameworks "+strings.Join(ex.frameworks, ", ")+" · ")
			}
			for _, w := range want {
				if table.code != 0 || !strings.Contains(table.stdout, w) {
					t.Errorf("ls: exit %d, the provenance line lacks %q:\n%s\n%s", table.code, w, table.stdout, table.stderr)
				}
			}
			for _, p := range lsProvenance(t, work, bin, env, dir) {
				if p == nil || !strings.HasPrefix(p.RecordedAt, today) || p.Adkproxy == "" || !slices.Equal(p.Upstream, []string{"local"}) ||
					!containsAll(p.Clients, ex.clients) || !slices.Equal(p.Frameworks, ex.frameworks) && len(p.Frameworks)+len(ex.frameworks) > 0 ||
					len(p.Models) != 1 || !slices.Equal(p.Models["gemini-2.5-flash"], []string{"gemini-2.5-flash"}) {
					t.Errorf("ls --json provenance %+v, want today's, local, clients %v, frameworks %v, gemini-2.5-flash answered by gemini-2.5-flash", p, ex.clients, ex.frameworks)
				}
			}
			page := filepath.Join(work, ex.name+".html")
			html := runAdkproxy(t, work, bin, env, "ls", "--format", "html", dir)
			os.WriteFile(page, []byte(html.stdout), 0o644)
			if html.code != 0 || !strings.Contains(html.stdout, "recorded "+today) {
				t.Errorf("ls --format html: exit %d, no provenance in the page", html.code)
			}
			fakeHost := strings.TrimPrefix(ex.upstream, "http://")
			for _, needle := range []string{key, fakeHost, "127.0.0.1"} {
				if n := provenanceCount(t, dir, needle); n > 0 {
					t.Errorf("the provenance holds %q", needle)
				}
			}
			if n := testutil.CountInDir(t, dir, key); n > 0 {
				t.Errorf("the key reached %d cassette file(s)", n)
			}
			if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "90d", dir); r.code != 0 || !strings.Contains(r.stdout, "no cassette recorded more than 90d ago") {
				t.Errorf("ls --stale 90d on today's recording: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
			}
			if r := runAdkproxy(t, work, bin, env, "ls", "--stale", "0s", "--json", dir); r.code != 1 || !strings.Contains(r.stdout, `"age_days": 0`) {
				t.Errorf("ls --stale 0s: exit %d, want 1 listing every cassette\n%s%s", r.code, r.stdout, r.stderr)
			}

			// The shipped cassettes: recorded the same way, by an earlier
			// build, at an earlier time, on the runtime of that machine
			// (which SteadyProvenance leaves out); every other line and
			// part of the provenance line is the same, the SDKs' and
			// frameworks' versions included.
			for _, p := range lsProvenance(t, work, bin, env, shipped) {
				if p == nil || p.RecordedAt == "" || p.Adkproxy == "" || !slices.Equal(p.Upstream, []string{"local"}) {
					t.Errorf("a shipped cassette's provenance is %+v, want one recorded from a local fake (re-record with scripts/record-demo.sh)", p)
				}
			}
			old := runAdkproxy(t, work, bin, env, "ls", shipped)
			fresh := strings.ReplaceAll(table.stdout, dir, shipped)
			if old.code != 0 || testutil.SteadyProvenance(fresh) != testutil.SteadyProvenance(old.stdout) {
				t.Errorf("ls of a fresh recording differs from the shipped cassettes' (re-record them with scripts/record-demo.sh):\n%s\n----- shipped -----\n%s%s", fresh, old.stdout, old.stderr)
			}
			for _, needle := range []string{"fake-key-for-the-scripted-upstream", "127.0.0.1"} {
				if n := testutil.CountInDir(t, shipped, needle); n > 0 {
					t.Errorf("%q is in %d shipped cassette file(s)", needle, n)
				}
			}
			if n := provenanceCount(t, shipped, "localhost"); n > 0 {
				t.Errorf("a shipped cassette's provenance names a host")
			}
		})
	}
}

// provenanceDoc is a cassette's provenance as ls --json prints it.
type provenanceDoc struct {
	RecordedAt string              `json:"recorded_at"`
	Adkproxy   string              `json:"adkproxy"`
	Upstream   []string            `json:"upstream"`
	Clients    []string            `json:"clients"`
	Frameworks []string            `json:"frameworks"`
	Models     map[string][]string `json:"models"`
}

// lsProvenance is the provenance of each cassette in dir, by ls --json.
func lsProvenance(t *testing.T, work, bin string, env []string, dir string) []*provenanceDoc {
	t.Helper()
	var doc struct {
		Cassettes []struct {
			Provenance *provenanceDoc `json:"provenance"`
		} `json:"cassettes"`
	}
	js := runAdkproxy(t, work, bin, env, "ls", "--json", dir)
	if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil || len(doc.Cassettes) == 0 {
		t.Fatalf("ls --json %s: exit %d, %v\n%s", dir, js.code, err, js.stdout)
	}
	var out []*provenanceDoc
	for _, c := range doc.Cassettes {
		out = append(out, c.Provenance)
	}
	return out
}

// withoutProvenanceBlock rewrites a cassette as adkproxy wrote it before
// it recorded provenance.
func withoutProvenanceBlock(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(b), "\nprovenance:\n")
	_, tail, ok2 := strings.Cut(rest, "\nsessions:")
	if !ok || !ok2 {
		t.Fatalf("%s has no provenance block before its sessions", path)
	}
	os.WriteFile(path, []byte(head+"\nsessions:"+tail), 0o644)
}

// goModVersion is the version go.mod requires of module, without its v.
func goModVersion(t *testing.T, gomod, module string) string {
	t.Helper()
	b, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(module) + ` v(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s requires no %s", gomod, module)
	}
	return string(m[1])
}

// pythonVersion is the __version__ a Python package's version.py sets.
func pythonVersion(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^__version__ = ['"]([^'"]+)['"]`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s sets no __version__", file)
	}
	return string(m[1])
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !slices.Contains(list, w) {
			return false
		}
	}
	return true
}

// provenanceCount counts the cassettes of dir whose provenance block
// holds needle.
func provenanceCount(t *testing.T, dir, needle string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		b, _ := os.ReadFile(path)
		_, block, ok := strings.Cut(string(b), "\nprovenance:\n")
		if !ok {
			t.Errorf("%s has no provenance", path)
			return nil
		}
		if i := strings.Index(block, "\nsessions:"); i >= 0 {
			block = block[:i]
		}
		if strings.Contains(block, needle) {
			n++
		}
		return nil
	})
	return n
}

// startFakeGemini serves the tests' rule-based Gemini until the test ends
// and returns its base URL.
func startFakeGemini(t *testing.T, bin string) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	fake := exec.Command(bin, "-addr-file", addrFile)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Kill(); fake.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if addr, _ := os.ReadFile(addrFile); len(addr) > 0 {
			return "http://" + strings.TrimSpace(string(addr))
		}
	}
	t.Fatal("fakegemini did not write its address")
	return ""
}
