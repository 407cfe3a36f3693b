package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// requireMCP finds node and e2e/mcp's packages (ADK-JS with
// @modelcontextprotocol/sdk and @a2a-js/sdk).
func requireMCP(t *testing.T, root string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	for _, pkg := range []string{"@google/adk", "@modelcontextprotocol/sdk", "@a2a-js/sdk"} {
		if _, err := os.Stat(filepath.Join(root, "e2e", "mcp", "node_modules", pkg)); err != nil {
			testutil.Require(t, filepath.Join("e2e", "mcp", "node_modules", pkg)+" (run 'make npm-deps')")
		}
	}
	return node
}

// mcpRun is what e2e/mcp/agent.mjs prints.
type mcpRun struct {
	ToolResults []map[string]any `json:"tool_results"`
	Text        string           `json:"text"`
}

func parseMCPRun(t *testing.T, what, stdout string) mcpRun {
	t.Helper()
	var r mcpRun
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &r); err != nil {
		t.Fatalf("%s: the agent printed %q, not its JSON result: %v", what, stdout, err)
	}
	return r
}

func startsIn(file string) int {
	b, _ := os.ReadFile(file)
	return strings.Count(string(b), "\n")
}

// checkFaked: a run recorded with e2e/mcp/fakes.yaml keeps the fake's
// answer as the exchange (marked X-Adkproxy-Fake) and in the next step's
// tool results, and the run's report lists it as served.
func checkFaked(t *testing.T, rec result, dir, want string) {
	t.Helper()
	if rec.code != 0 || !strings.Contains(rec.stdout, want) {
		t.Fatalf("record with --tool-fakes exited %d; the agent should have got %q, got %s", rec.code, want, rec.stdout)
	}
	if !strings.Contains(rec.stderr, "tool fakes: 1 call(s) served") {
		t.Errorf("the fakes report is missing or wrong:\n%s", rec.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c := string(b); !strings.Contains(c, "X-Adkproxy-Fake: e2e/mcp/fakes.yaml:") || !strings.Contains(c, "tool_results: [{name: ") ||
		!strings.Contains(c[strings.Index(c, "tool_results: [{name: "):], want) {
		t.Errorf("the cassette does not keep the fake's answer %q as the exchange and the tool result:\n%s", want, c)
	}
}

// TestMCPStdioADKJS: ADK-JS's MCPToolset starts a stdio server built on
// @modelcontextprotocol/sdk through `adkproxy mcp --`, with the minimal
// environment the MCP SDK gives it (no ADKPROXY_URL: the proxy is found by
// its discovery file under HOME). The server's answers change on every run.
// Record keeps its JSON-RPC exchanges under the step that called the tool;
// strict replay starts no server and gives the agent the recorded answer;
// a changed argument fails naming the MCP server and tool; ls lists the
// call with its arguments inside its step.
func TestMCPStdioADKJS(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireMCP(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)
	home := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	server, _ := json.Marshal([]string{bin, "mcp", "--name", "weather", "--", node, "e2e/mcp/server.mjs", "--started", started})
	env := func(extra ...string) []string {
		return append(adkEnv("HOME="+home, "MCP_STDIO_COMMAND="+string(server)), extra...)
	}
	fake := startFake(t, bin, filepath.Join(root, "e2e", "mcp", "weather.yaml"))

	rec := runAdkproxy(t, root, bin, env(), "record", "--cassettes", dir, "--upstream", fake, "--", node, "e2e/mcp/agent.mjs")
	if rec.code != 0 {
		t.Fatalf("record exited %d; stderr:\n%s", rec.code, rec.stderr)
	}
	recorded := parseMCPRun(t, "record", rec.stdout)
	if len(recorded.ToolResults) != 1 || !strings.Contains(rec.stdout, `\"city\":\"Paris\"`) {
		t.Fatalf("record: the agent should have had one get_weather result for Paris from the MCP server, got %s", rec.stdout)
	}
	if startsIn(started) == 0 {
		t.Fatal("record: the MCP server was never started")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(home, ".cache", "adkproxy", "run", "*.json")); len(leftovers) != 0 {
		t.Errorf("record left its discovery files behind: %v", leftovers)
	}

	os.Remove(started)
	rep := runAdkproxy(t, root, bin, env(), "replay", "--cassettes", dir, "--", node, "e2e/mcp/agent.mjs")
	if rep.code != 0 {
		t.Fatalf("strict replay exited %d; stderr:\n%s", rep.code, rep.stderr)
	}
	if n := startsIn(started); n != 0 {
		t.Errorf("replay started the MCP server %d time(s); it should answer from the cassette", n)
	}
	if strings.TrimSpace(rep.stdout) != strings.TrimSpace(rec.stdout) {
		t.Errorf("replay gave the agent other answers than the recording:\nrecorded %s\nreplayed %s", rec.stdout, rep.stdout)
	}

	t.Run("changed argument", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, env("CITY=Lyon"), "replay", "--cassettes", dir, "--", node, "e2e/mcp/agent.mjs")
		if res.code != exitUnmatched && res.code != 1 {
			t.Errorf("replay with a changed argument exited %d, want %d or the agent's 1", res.code, exitUnmatched)
		}
		for _, want := range []string{`MCP server weather tool get_weather differs from the recording`, `arguments.city: recorded "Paris", got "Lyon"`} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
			}
		}
		if n := startsIn(started); n != 0 {
			t.Errorf("replay started the MCP server %d time(s)", n)
		}
	})

	t.Run("fake", func(t *testing.T) {
		faked := testutil.OutDir(t)
		rec := runAdkproxy(t, root, bin, env(), "record", "--tool-fakes", "e2e/mcp/fakes.yaml", "--cassettes", faked, "--upstream", fake, "--", node, "e2e/mcp/agent.mjs")
		checkFaked(t, rec, faked, "faked")
	})

	t.Run("closed world", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, env("CITY=Lyon"), "replay", "--mode", "lenient", "--closed-world", "--cassettes", dir, "--", node, "e2e/mcp/agent.mjs")
		if res.code != exitUnmatched {
			t.Errorf("lenient closed-world replay of an undeclared call exited %d, want %d", res.code, exitUnmatched)
		}
		if !strings.Contains(res.stderr, "closed world: cassette \"default\": the MCP server weather tool get_weather is neither recorded nor faked") {
			t.Errorf("stderr does not name the undeclared MCP tool:\n%s", res.stderr)
		}
	})

	t.Run("diff and OTLP", func(t *testing.T) {
		// The server's answers change on every run: a second recording's
		// tool result differs, and diff names the MCP tool.
		again := testutil.OutDir(t)
		rec2 := runAdkproxy(t, root, bin, env(), "record", "--cassettes", again, "--upstream", fake, "--", node, "e2e/mcp/agent.mjs")
		if rec2.code != 0 {
			t.Fatalf("second record exited %d", rec2.code)
		}
		res := runAdkproxy(t, root, bin, adkEnv(), "diff", dir, again)
		if !strings.Contains(res.stdout, "mcp weather tools/call get_weather(city=\"Paris\")") ||
			!strings.Contains(res.stdout, "mcp weather tools/call get_weather result.content[0].text") {
			t.Errorf("diff should list the MCP tool call and its changed result:\n%s", res.stdout)
		}
		exp := runAdkproxy(t, root, bin, adkEnv(), "export", "--format", "otlp-json", dir)
		for _, want := range []string{`"tools/call get_weather"`, `"gen_ai.tool.name"`, `"mcp.method.name"`} {
			if !strings.Contains(exp.stdout, want) {
				t.Errorf("the OTLP export has no %s", want)
			}
		}
	})

	t.Run("ls", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, adkEnv(), "ls", "--cassettes", dir)
		if res.code != 0 {
			t.Fatalf("ls exited %d; stderr:\n%s", res.code, res.stderr)
		}
		step0 := strings.Index(res.stdout, "step 0")
		call := strings.Index(res.stdout, `tool mcp weather tools/call get_weather {"city":"Paris"} → ok`)
		step1 := strings.Index(res.stdout, "step 1")
		if step0 < 0 || call < step0 || step1 < call {
			t.Errorf("ls should list the MCP tool call with its arguments inside step 0:\n%s", res.stdout)
		}
	})
}

// TestMCPStreamableHTTPADKJS: ADK-JS's MCPToolset reaches a Streamable
// HTTP server built on @modelcontextprotocol/sdk (answers that change on
// every run) through HTTP_PROXY, at a name --connect-to routes to
// loopback. Record reads the POSTs as MCP and answers the client's
// optional GET stream 405; strict replay with the server stopped passes
// and gives the recorded answer; a changed argument fails naming the MCP
// server and tool; ls shows the tools/call in its step.
func TestMCPStreamableHTTPADKJS(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireMCP(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)
	started := filepath.Join(t.TempDir(), "started")
	port, stop := startNode(t, root, node, "e2e/mcp/server.mjs", "--http", "0", "--started", started)
	fake := startFake(t, bin, filepath.Join(root, "e2e", "mcp", "weather.yaml"))
	env := func(extra ...string) []string {
		return append(adkEnv("MCP_URL=http://weather.mcp.test/mcp"), extra...)
	}

	rec := runAdkproxy(t, root, bin, env(), "record", "--cassettes", dir, "--upstream", fake,
		"--connect-to", "weather.mcp.test:80=127.0.0.1:"+port, "--", node, "e2e/mcp/agent.mjs")
	if rec.code != 0 {
		t.Fatalf("record exited %d; stderr:\n%s", rec.code, rec.stderr)
	}
	if r := parseMCPRun(t, "record", rec.stdout); len(r.ToolResults) != 1 || !strings.Contains(rec.stdout, `\"city\":\"Paris\"`) {
		t.Fatalf("record: the agent should have had one get_weather result for Paris, got %s", rec.stdout)
	}
	faked := testutil.OutDir(t)
	recFaked := runAdkproxy(t, root, bin, env(), "record", "--tool-fakes", "e2e/mcp/fakes.yaml", "--cassettes", faked, "--upstream", fake,
		"--connect-to", "weather.mcp.test:80=127.0.0.1:"+port, "--", node, "e2e/mcp/agent.mjs")
	checkFaked(t, recFaked, faked, "faked")
	stop()

	rep := runAdkproxy(t, root, bin, env(), "replay", "--cassettes", dir, "--", node, "e2e/mcp/agent.mjs")
	if rep.code != 0 {
		t.Fatalf("strict replay with the MCP server stopped exited %d; stderr:\n%s", rep.code, rep.stderr)
	}
	if strings.TrimSpace(rep.stdout) != strings.TrimSpace(rec.stdout) {
		t.Errorf("replay gave the agent other answers than the recording:\nrecorded %s\nreplayed %s", rec.stdout, rep.stdout)
	}

	t.Run("changed argument", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, env("CITY=Lyon"), "replay", "--cassettes", dir, "--", node, "e2e/mcp/agent.mjs")
		if res.code != exitUnmatched && res.code != 1 {
			t.Errorf("replay with a changed argument exited %d, want %d or the agent's 1", res.code, exitUnmatched)
		}
		for _, want := range []string{`MCP server weather.mcp.test/mcp tool get_weather (POST http://weather.mcp.test/mcp) differs from the recording`,
			`arguments.city: recorded "Paris", got "Lyon"`} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
			}
		}
	})

	t.Run("closed world", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, env("CITY=Lyon"), "replay", "--mode", "lenient", "--closed-world", "--cassettes", dir, "--", node, "e2e/mcp/agent.mjs")
		if res.code != exitUnmatched || !strings.Contains(res.stderr, "closed world: cassette \"default\": the MCP server weather.mcp.test/mcp tool get_weather") {
			t.Errorf("lenient closed-world replay of an undeclared call exited %d (want %d) naming the MCP tool:\n%s", res.code, exitUnmatched, res.stderr)
		}
	})

	t.Run("ls", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, adkEnv(), "ls", "--cassettes", dir)
		step0 := strings.Index(res.stdout, "step 0")
		call := strings.Index(res.stdout, `tool mcp weather.mcp.test/mcp tools/call get_weather {"city":"Paris"} → ok`)
		step1 := strings.Index(res.stdout, "step 1")
		if res.code != 0 || step0 < 0 || call < step0 || step1 < call {
			t.Errorf("ls (exit %d) should list the MCP tool call with its arguments inside step 0:\n%s", res.code, res.stdout)
		}
		if strings.Contains(res.stdout, "tool http") {
			t.Errorf("ls lists MCP traffic as anonymous HTTP:\n%s", res.stdout)
		}
	})
}

// startNode runs a server script of e2e/mcp that prints "listening PORT"
// and returns the port and a function that stops it.
func startNode(t *testing.T, root, node string, args ...string) (port string, stop func()) {
	t.Helper()
	return startServer(t, root, append([]string{node}, args...)...)
}

// startServer runs a server that prints "listening PORT" and returns the
// port and a function that stops it.
func startServer(t *testing.T, root string, args ...string) (port string, stop func()) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = root
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(stop)
	line := make([]byte, 64)
	n, _ := out.Read(line)
	port, ok := strings.CutPrefix(strings.TrimSpace(string(line[:n])), "listening ")
	if !ok {
		t.Fatalf("%v said %q, not its port", args, line[:n])
	}
	return port, stop
}

// TestA2AADKJS: ADK-JS's RemoteA2AAgent, used as an AgentTool, calls a
// remote agent built on @a2a-js/sdk (a booking number drawn at random on
// every run) through HTTP_PROXY. ADK makes up a messageId and an
// adk_session_id for every message: strict replay with the remote agent
// stopped still passes and gives the recorded answer; a changed request
// fails naming the remote agent; ls shows the card fetch and the
// message/send with its text inside the calling step.
func TestA2AADKJS(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireMCP(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)
	port, stop := startNode(t, root, node, "e2e/mcp/a2a_server.mjs", "--port", "0", "--public-url", "http://travel.a2a.test/")
	fake := startFake(t, bin, filepath.Join(root, "e2e", "mcp", "travel.yaml"))
	env := func(extra ...string) []string { return append(adkEnv("A2A_CARD=http://travel.a2a.test/"), extra...) }

	rec := runAdkproxy(t, root, bin, env(), "record", "--cassettes", dir, "--upstream", fake,
		"--connect-to", "travel.a2a.test:80=127.0.0.1:"+port, "--", node, "e2e/mcp/a2a_agent.mjs")
	if rec.code != 0 || !strings.Contains(rec.stdout, "Booked trip #") {
		t.Fatalf("record exited %d and printed %s; stderr:\n%s", rec.code, rec.stdout, rec.stderr)
	}
	faked := testutil.OutDir(t)
	recFaked := runAdkproxy(t, root, bin, env(), "record", "--tool-fakes", "e2e/mcp/fakes.yaml", "--cassettes", faked, "--upstream", fake,
		"--connect-to", "travel.a2a.test:80=127.0.0.1:"+port, "--", node, "e2e/mcp/a2a_agent.mjs")
	checkFaked(t, recFaked, faked, "Booked trip FAKE-1")
	stop()

	rep := runAdkproxy(t, root, bin, env(), "replay", "--cassettes", dir, "--", node, "e2e/mcp/a2a_agent.mjs")
	if rep.code != 0 {
		t.Fatalf("strict replay with the remote agent stopped exited %d; stderr:\n%s", rep.code, rep.stderr)
	}
	if strings.TrimSpace(rep.stdout) != strings.TrimSpace(rec.stdout) {
		t.Errorf("replay gave the agent other answers than the recording:\nrecorded %s\nreplayed %s", rec.stdout, rep.stdout)
	}

	t.Run("changed request", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, env("REQUEST=Book a trip to Rome"), "replay", "--cassettes", dir, "--", node, "e2e/mcp/a2a_agent.mjs")
		if res.code != exitUnmatched && res.code != 1 {
			t.Errorf("replay with a changed request exited %d, want %d or the agent's 1", res.code, exitUnmatched)
		}
		for _, want := range []string{`A2A agent travel_agent message/send (POST http://travel.a2a.test/) differs from the recording`,
			`body.params.message.parts[0].text: recorded "Book a trip to Paris", got "Book a trip to Rome"`} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
			}
		}
		if strings.Contains(res.stderr, "messageId") || strings.Contains(res.stderr, "adk_session_id") {
			t.Errorf("the ids ADK makes up for every message are reported as differences:\n%s", res.stderr)
		}
	})

	t.Run("closed world", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, env("REQUEST=Book a trip to Rome"), "replay", "--mode", "lenient", "--closed-world", "--cassettes", dir, "--", node, "e2e/mcp/a2a_agent.mjs")
		if res.code != exitUnmatched || !strings.Contains(res.stderr, "closed world: cassette \"default\": the A2A agent travel_agent message/send") {
			t.Errorf("lenient closed-world replay of an undeclared message exited %d (want %d) naming the agent:\n%s", res.code, exitUnmatched, res.stderr)
		}
	})

	t.Run("ls", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, adkEnv(), "ls", "--cassettes", dir)
		step0 := strings.Index(res.stdout, "step 0")
		card := strings.Index(res.stdout, "tool a2a travel_agent agent-card")
		call := strings.Index(res.stdout, `tool a2a travel_agent message/send "Book a trip to Paris" → "Booked trip #`)
		step1 := strings.Index(res.stdout, "step 1")
		if res.code != 0 || step0 < 0 || card < step0 || call < card || step1 < call {
			t.Errorf("ls (exit %d) should list the card fetch and the message/send inside step 0:\n%s", res.code, res.stdout)
		}
	})
}
