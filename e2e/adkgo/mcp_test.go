package adkgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/mcptoolset"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/adkproxytest"
	"github.com/adkproxy/adkproxy/internal/engine/toolfake"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// mcpServerEnv, set in its environment, makes this test binary the MCP
// server of TestADKGoMCPToolset (TestMain): get_weather on the go-sdk,
// answering a temperature drawn at random and its start time, so a replay
// that reached it would give other answers. Each start appends a line to
// the file the variable names.
const mcpServerEnv = "ADKGO_TEST_MCP_SERVER"

// serveMCPIfAsked serves the MCP server over stdio when this process was
// started as one, and says whether it was.
func serveMCPIfAsked() bool {
	started := os.Getenv(mcpServerEnv)
	if started == "" {
		return false
	}
	if f, err := os.OpenFile(started, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	at := time.Now().Format(time.RFC3339Nano)
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	type in struct {
		City string `json:"city" jsonschema:"the city name"`
	}
	type out struct {
		City    string `json:"city"`
		TempC   int    `json:"temp_c"`
		Started string `json:"started"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get_weather", Description: "Returns the current weather in a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
			return nil, out{City: a.City, TempC: rand.IntN(1000), Started: at}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "MCP server:", err)
	}
	return true
}

// askWeather runs an ADK Go agent whose get_weather comes from the MCP
// server through mcptoolset, the server's command prefixed with `adkproxy
// mcp --` (given the proxy's address: adkproxytest writes no discovery
// file). city, when set, replaces the city the model asked for (the
// agent's code changed since the recording). It returns the tool results
// and the final text.
func askWeather(t *testing.T, p *adkproxytest.Proxy, adkproxy, started, city string) (results []string, text string) {
	t.Helper()
	ctx := t.Context()
	m, err := gemini.NewModel(ctx, "gemini-2.5-flash", p.ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(adkproxy, "mcp", "--name", "weather", "--proxy-url", p.URL, "--", self)
	cmd.Env = append(os.Environ(), mcpServerEnv+"="+started)
	cmd.Stderr = os.Stderr
	// The SDK's transport waits for the process when the session closes;
	// a second Wait here would race with it, so the test only kills.
	defer func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	}()
	weather, err := mcptoolset.New(mcptoolset.Config{Transport: &mcp.CommandTransport{Command: cmd}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := llmagent.Config{Name: "weather_agent", Model: m, Instruction: "Answer weather questions with get_weather.",
		Toolsets: []tool.Toolset{weather}}
	if city != "" {
		cfg.BeforeToolCallbacks = []llmagent.BeforeToolCallback{func(_ agent.ToolContext, _ tool.Tool, args map[string]any) (map[string]any, error) {
			args["city"] = city
			return nil, nil
		}}
	}
	root, err := llmagent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sessions := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: "mcp_e2e", Agent: root, SessionService: sessions})
	if err != nil {
		t.Fatal(err)
	}
	created, err := sessions.Create(ctx, &session.CreateRequest{AppName: "mcp_e2e", UserID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range r.Run(ctx, "u", created.Session.ID(), genai.NewContentFromText("What is the weather in Paris", genai.RoleUser), agent.RunConfig{}) {
		if err != nil {
			return results, "error: " + err.Error()
		}
		if ev.Content == nil {
			continue
		}
		for _, part := range ev.Content.Parts {
			if part.FunctionResponse != nil {
				b, _ := json.Marshal(part.FunctionResponse.Response)
				results = append(results, string(b))
			}
			if part.Text != "" {
				text += part.Text
			}
		}
	}
	return results, text
}

// TestADKGoMCPToolset: ADK Go's mcptoolset (v1.7.0, on the MCP go-sdk)
// starts a stdio server through `adkproxy mcp --`. Record keeps its
// JSON-RPC exchanges in the step that called the tool; strict replay
// starts no server and gives the agent the recorded answers; a changed
// argument fails naming the MCP tool; ls shows the call in its step; a
// tool fake overrides the recorded answer; a closed-world replay fails on
// the undeclared call.
func TestADKGoMCPToolset(t *testing.T) {
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	upstream, _ := url.Parse(up.URL)
	dir := testutil.OutDir(t)
	adkproxy := testutil.BuildAdkproxy(t)
	started := filepath.Join(t.TempDir(), "started")
	starts := func() int { b, _ := os.ReadFile(started); return bytes.Count(b, []byte("\n")) }
	replay := func(city string, configure func(*proxy.Config)) (results []string, text string, failure error) {
		p, err := adkproxytest.New(dir, "default", adkproxytest.Record(false), adkproxytest.Configure(configure))
		if err != nil {
			t.Fatal(err)
		}
		results, text = askWeather(t, p, adkproxy, started, city)
		return results, text, p.Close()
	}

	p, err := adkproxytest.New(dir, "default", adkproxytest.Record(true), adkproxytest.Configure(func(c *proxy.Config) { c.Upstream = upstream }))
	if err != nil {
		t.Fatal(err)
	}
	recorded, text := askWeather(t, p, adkproxy, started, "")
	if err := p.Close(); err != nil {
		t.Fatalf("record: %v", err)
	}
	if len(recorded) != 1 || !strings.Contains(recorded[0], `"city":"Paris"`) || starts() != 1 {
		t.Fatalf("record: the agent should have had one get_weather result for Paris from one server start (%d), got %q, %q", starts(), recorded, text)
	}
	os.Remove(started)

	got, _, failure := replay("", func(*proxy.Config) {})
	if failure != nil || strings.Join(got, "") != strings.Join(recorded, "") || starts() != 0 {
		t.Errorf("strict replay: %v; the agent got %q (recorded %q); the server was started %d time(s)", failure, got, recorded, starts())
	}

	_, _, failure = replay("Lyon", func(*proxy.Config) {})
	if failure == nil || !strings.Contains(failure.Error(), "MCP server weather tool get_weather differs from the recording") ||
		!strings.Contains(failure.Error(), `arguments.city: recorded "Paris", got "Lyon"`) {
		t.Errorf("replay with a changed argument: %v", failure)
	}

	_, _, failure = replay("Lyon", func(c *proxy.Config) { c.Lenient, c.ClosedWorld = true, true })
	if failure == nil || !strings.Contains(failure.Error(), "the MCP server weather tool get_weather is neither recorded nor faked") {
		t.Errorf("closed-world replay of an undeclared call: %v", failure)
	}

	fakes := filepath.Join(t.TempDir(), "fakes.yaml")
	os.WriteFile(fakes, []byte("fakes:\n  - tool: get_weather\n    args: {city: Paris}\n    result: {city: Paris, temp_c: 21, faked: true}\n"), 0o600)
	set, err := toolfake.Load(fakes)
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ = replay("", func(c *proxy.Config) { c.Lenient, c.ToolFakes = true, set })
	if len(got) != 1 || !strings.Contains(got[0], `"faked":true`) || len(set.Report().Served) != 1 {
		t.Errorf("replay with a fake: the agent got %q; report %+v", got, set.Report())
	}
	if starts() != 0 {
		t.Errorf("replay started the MCP server %d time(s)", starts())
	}

	out, err := exec.Command(adkproxy, "ls", "--cassettes", dir).CombinedOutput()
	ls := string(out)
	step0, call, step1 := strings.Index(ls, "step 0"), strings.Index(ls, `tool mcp weather tools/call get_weather {"city":"Paris"} → ok`), strings.Index(ls, "step 1")
	if err != nil || step0 < 0 || call < step0 || step1 < call {
		t.Errorf("ls (%v) should list the MCP tool call with its arguments inside step 0:\n%s", err, ls)
	}
}
