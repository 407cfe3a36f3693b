package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// adkPython is the vendored ADK for Python (../shared/vendor/adk-python)
// and the interpreter it runs on.
type adkPython struct {
	python string // the interpreter itself, not a shim: a stdio server gets a minimal environment
	path   string // PYTHONPATH: the vendored folder and a metadata folder for its mcp package
}

// requireADKPython finds the vendored ADK for Python, which skips the test
// when CI is unset and ../shared is missing. The vendored mcp package has
// no dist-info, which its FastMCP reads its version from: a folder with
// one stands beside it on the path.
func requireADKPython(t *testing.T) adkPython {
	t.Helper()
	vendor := testutil.SharedDir(t, "vendor", "adk-python")
	if _, err := exec.LookPath("python3"); err != nil {
		testutil.Require(t, "python3 (CPython 3.11 with pydantic 2)")
	}
	exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	meta := filepath.Join(t.TempDir(), "meta")
	info := filepath.Join(meta, "mcp-1.21.0.dist-info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(info, "METADATA"), []byte("Metadata-Version: 2.1\nName: mcp\nVersion: 1.21.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return adkPython{python: strings.TrimSpace(string(exe)), path: filepath.Clean(vendor) + string(os.PathListSeparator) + meta}
}

// server is the command of e2e/mcp/python/server.py with its path given as
// arguments, as a stdio server started by an MCP client needs.
func (p adkPython) server(root string, args ...string) []string {
	cmd := []string{p.python, filepath.Join(root, "e2e", "mcp", "python", "server.py")}
	for _, dir := range filepath.SplitList(p.path) {
		cmd = append(cmd, "--path", dir)
	}
	return append(cmd, args...)
}

// mcpCase is one MCP transport an ADK agent's MCPToolset reaches a server
// over, and what the run's messages and listing call that server.
type mcpCase struct {
	env     []string // the agent's variables naming the server
	flags   []string // record's extra flags (--connect-to)
	started string   // the file each start of the server appends to
	stop    func()   // stops an HTTP server before replay (nil for stdio)
	label   string   // how a mismatch and the closed world name the tool
	listed  string   // the ls line of the tools/call
	// fakeInReplay: the fake is checked in a replay, not a recording
	// (HTTP+SSE: while recording the answers pass on the server's stream)
	fakeInReplay bool
}

// TestMCPADKPython: ADK for Python's McpToolset (the vendored ADK 1.18
// and its mcp package) reaches an MCP server built on that mcp package,
// whose answers change on every run, over stdio through `adkproxy mcp --`
// (found by its discovery file: the MCP client passes the server a
// minimal environment), over Streamable HTTP and over the older HTTP+SSE
// transport (answers on a GET stream, POSTs answered 202) through
// HTTP_PROXY. For
// each: record from `adkproxy fake`; strict replay with the server
// stopped passes, gives the agent the recorded answers and starts no
// server process; a changed argument fails naming the MCP tool; ls shows
// the call inside its step; a tool fake overrides the server's answer;
// --closed-world fails on an undeclared call.
func TestMCPADKPython(t *testing.T) {
	py := requireADKPython(t)
	root := testutil.RepoRoot()
	bin := testutil.BuildAdkproxy(t)
	fake := startFake(t, bin, filepath.Join(root, "e2e", "mcp", "weather.yaml"))

	t.Run("stdio", func(t *testing.T) {
		started := filepath.Join(t.TempDir(), "started")
		server, _ := json.Marshal(append([]string{bin, "mcp", "--name", "weather", "--"}, py.server(root, "--started", started)...))
		checkMCPPython(t, root, bin, fake, py, mcpCase{
			env:     []string{"HOME=" + t.TempDir(), "MCP_STDIO_COMMAND=" + string(server)},
			started: started,
			label:   "MCP server weather tool get_weather",
			listed:  `tool mcp weather tools/call get_weather {"city":"Paris"} → ok`,
		})
	})
	t.Run("streamable HTTP", func(t *testing.T) {
		started := filepath.Join(t.TempDir(), "started")
		port, stop := startServer(t, root, py.server(root, "--http", "--started", started)...)
		checkMCPPython(t, root, bin, fake, py, mcpCase{
			env:     []string{"MCP_URL=http://weather.mcp.test/mcp"},
			flags:   []string{"--connect-to", "weather.mcp.test:80=127.0.0.1:" + port},
			started: started,
			stop:    stop,
			label:   "MCP server weather.mcp.test/mcp tool get_weather (POST http://weather.mcp.test/mcp)",
			listed:  `tool mcp weather.mcp.test/mcp tools/call get_weather {"city":"Paris"} → ok`,
		})
	})
	t.Run("HTTP+SSE", func(t *testing.T) {
		started := filepath.Join(t.TempDir(), "started")
		port, stop := startServer(t, root, py.server(root, "--sse", "--started", started)...)
		checkMCPPython(t, root, bin, fake, py, mcpCase{
			env:          []string{"MCP_SSE_URL=http://weather.mcp.test/sse"},
			flags:        []string{"--connect-to", "weather.mcp.test:80=127.0.0.1:" + port},
			started:      started,
			stop:         stop,
			label:        "MCP server weather.mcp.test/messages/ tool get_weather (POST http://weather.mcp.test/messages/?session_id=",
			listed:       `tool mcp weather.mcp.test/messages/ tools/call get_weather {"city":"Paris"} → ok`,
			fakeInReplay: true,
		})
	})
}

func checkMCPPython(t *testing.T, root, bin, fake string, py adkPython, c mcpCase) {
	agent := filepath.Join(root, "e2e", "mcp", "python", "agent.py")
	env := func(extra ...string) []string {
		return append(append(adkEnv("PYTHONPATH="+py.path, "PYTHONDONTWRITEBYTECODE=1"), c.env...), extra...)
	}
	record := func(dir string, extra ...string) result {
		args := append(append([]string{"record", "--cassettes", dir, "--upstream", fake}, c.flags...), extra...)
		return runAdkproxy(t, root, bin, env(), append(args, "--", py.python, agent)...)
	}
	dir := testutil.OutDir(t)
	rec := record(dir)
	if rec.code != 0 {
		t.Fatalf("record exited %d; stderr:\n%s", rec.code, rec.stderr)
	}
	if r := parseMCPRun(t, "record", rec.stdout); len(r.ToolResults) != 1 || !strings.Contains(rec.stdout, `\"city\": \"Paris\"`) {
		t.Fatalf("record: the agent should have had one get_weather result for Paris from the MCP server, got %s", rec.stdout)
	}
	if startsIn(c.started) == 0 {
		t.Fatal("record: the MCP server was never started")
	}
	if !c.fakeInReplay {
		faked := testutil.OutDir(t)
		checkFaked(t, record(faked, "--tool-fakes", "e2e/mcp/fakes.yaml"), faked, "faked")
	}
	if c.stop != nil {
		c.stop()
	}
	os.Remove(c.started)

	replay := func(extra ...string) result {
		var vars []string
		for len(extra) > 0 && strings.Contains(extra[0], "=") {
			vars, extra = append(vars, extra[0]), extra[1:]
		}
		args := append(append([]string{"replay"}, extra...), "--cassettes", dir, "--", py.python, agent)
		return runAdkproxy(t, root, bin, env(vars...), args...)
	}
	rep := replay()
	if rep.code != 0 {
		t.Fatalf("strict replay with the MCP server stopped exited %d; stderr:\n%s", rep.code, rep.stderr)
	}
	if n := startsIn(c.started); n != 0 {
		t.Errorf("replay started the MCP server %d time(s); it should answer from the cassette", n)
	}
	if strings.TrimSpace(rep.stdout) != strings.TrimSpace(rec.stdout) {
		t.Errorf("replay gave the agent other answers than the recording:\nrecorded %s\nreplayed %s", rec.stdout, rep.stdout)
	}

	if c.fakeInReplay {
		// Lenient: the model call carrying the fake's result differs from
		// the recording's.
		faked := replay("--mode", "lenient", "--tool-fakes", "e2e/mcp/fakes.yaml")
		if faked.code != 0 || !strings.Contains(faked.stdout, `\"faked\":true`) || !strings.Contains(faked.stderr, "tool fakes: 1 call(s) served") {
			t.Errorf("replay with a fake exited %d; the agent should have got the fake's answer, got %s\n%s", faked.code, faked.stdout, faked.stderr)
		}
	}

	changed := replay("CITY=Lyon")
	if changed.code != exitUnmatched && changed.code != 1 {
		t.Errorf("replay with a changed argument exited %d, want %d or the agent's 1", changed.code, exitUnmatched)
	}
	for _, want := range []string{c.label, "differs from the recording", `arguments.city: recorded "Paris", got "Lyon"`} {
		if !strings.Contains(changed.stderr, want) {
			t.Errorf("a changed argument: stderr does not say %q:\n%s", want, changed.stderr)
		}
	}

	closed := replay("CITY=Lyon", "--mode", "lenient", "--closed-world")
	// ADK for Python stops the run on a tool's error, so the agent's own
	// status (1) can come first; either way the run fails naming the tool.
	if closed.code != exitUnmatched && closed.code != 1 || !strings.Contains(closed.stderr, `closed world: cassette "default": the `+c.label) {
		t.Errorf("lenient closed-world replay of an undeclared call exited %d (want %d or the agent's 1) naming the MCP tool:\n%s", closed.code, exitUnmatched, closed.stderr)
	}
	if n := startsIn(c.started); n != 0 {
		t.Errorf("replay started the MCP server %d time(s)", n)
	}

	ls := runAdkproxy(t, root, bin, adkEnv(), "ls", "--cassettes", dir)
	step0 := strings.Index(ls.stdout, "step 0")
	call := strings.Index(ls.stdout, c.listed)
	step1 := strings.Index(ls.stdout, "step 1")
	if ls.code != 0 || step0 < 0 || call < step0 || step1 < call {
		t.Errorf("ls (exit %d) should list the MCP tool call with its arguments inside step 0:\n%s", ls.code, ls.stdout)
	}
	lsJSON := runAdkproxy(t, root, bin, adkEnv(), "ls", "--json", "--cassettes", dir)
	if !regexp.MustCompile(`"method":\s*"tools/call",\s*"name":\s*"get_weather",\s*"args":\s*\{[^}]*\},\s*"id":\s*"[^"]*",\s*"result":\s*\{`).MatchString(lsJSON.stdout) {
		t.Errorf("ls --json should give the tools/call its result (on the stream, over HTTP+SSE):\n%s", lsJSON.stdout)
	}
}
