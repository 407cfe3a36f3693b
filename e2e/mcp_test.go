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
