package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/internal/wire"
)

const (
	// adkAgent is run by node from the repository root.
	adkAgent = "e2e/adk/agent.mjs"
	// adkTurn1 and adkTurn2 are the agent's two user turns, in one session.
	adkTurn1 = "What is the weather in Paris?"
	adkTurn2 = "Please transfer me to travel_agent to book a trip to Paris."
	// adkCalls is how many model calls the conversation takes: weather_agent
	// calls get_weather and then answers (turn 1); weather_agent transfers
	// and travel_agent answers (turn 2).
	adkCalls = 4
	// The agent names adkproxy reads from ADK's system instructions.
	rootAgent = "weather_agent"
	subAgent  = "travel_agent"
)

// TestADKJSRecordThenReplay proves that an agent built on the official
// Agent Development Kit for JavaScript (@google/adk) — a root agent with a
// function tool and a sub-agent it transfers to, two user turns in one
// session — records through adkproxy into one session of two invocations
// with each step under the agent that made it, replays with identical
// results while the upstream is down and no key is set, and that a changed
// tool result fails the replay (strict) or is served and reported
// (lenient).
func TestADKJSRecordThenReplay(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireADK(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)

	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()

	// Record, with the real key.
	rec := runAdkproxy(t, root, bin, adkEnv("GOOGLE_API_KEY="+testutil.SecretAPIKey),
		"record", "--cassettes", dir, "--upstream", up.URL, "--", node, adkAgent)
	if rec.code != 0 {
		t.Fatalf("adkproxy record exited %d, want 0; stderr:\n%s", rec.code, rec.stderr)
	}
	recorded := parseScenario(t, "record", rec.stdout)
	checkADKRun(t, recorded)

	files := filesUnder(t, dir)
	if len(files) != 1 || filepath.Base(files[0]) != "default.yaml" {
		t.Fatalf("adkproxy record wrote %v under %s, want one cassette default.yaml; stderr:\n%s", files, dir, rec.stderr)
	}
	checkRecordedWithKey(t, rec, files, upstream, adkCalls)
	c, err := cassettes.Load(files[0])
	if err != nil {
		t.Fatalf("loading the recorded cassette: %v", err)
	}
	checkADKCassette(t, c)
	if t.Failed() {
		t.FailNow()
	}

	// Replay, with the upstream gone and no key.
	up.Close()
	replayAsRecorded(t, root, bin, adkEnv(), dir, recorded, node, adkAgent)

	// The tool now reports 23°C: the function response weather_agent sends
	// back in turn 1 differs from the recording in one field.
	const tempDiff = "functionResponse.response.temp_c: recorded 18, got 23"
	t.Run("changed tool result, strict", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, adkEnv("TOOL_TEMP=23"), "replay", "--cassettes", dir, "--", node, adkAgent)
		// ADK may carry on past the 400 (then adkproxy's own status tells)
		// or stop on it (then the agent's status 1 is passed through).
		if res.code != exitUnmatched && res.code != 1 {
			t.Errorf("adkproxy replay exited %d, want %d (a request differed while the agent exited 0) or the agent's own 1; stderr:\n%s",
				res.code, exitUnmatched, res.stderr)
		}
		for _, want := range []string{tempDiff, "mismatched"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("adkproxy's stderr does not mention %q:\n%s", want, res.stderr)
			}
		}
	})
	t.Run("changed tool result, lenient", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, adkEnv("TOOL_TEMP=23"), "replay", "--mode", "lenient", "--cassettes", dir, "--", node, adkAgent)
		if res.code != 0 {
			t.Fatalf("adkproxy replay --mode lenient exited %d, want 0; stderr:\n%s", res.code, res.stderr)
		}
		for _, want := range []string{tempDiff, "mismatched (served, lenient)"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("adkproxy's stderr does not mention %q:\n%s", want, res.stderr)
			}
		}
		// The tool ran with the new value, but every model answer is the
		// recorded one.
		got := decodeADKRun(t, parseScenario(t, "lenient replay", res.stdout))
		want := decodeADKRun(t, recorded)
		if r := got.Turns[0].FunctionResponses; len(r) != 1 || fmt.Sprint(r[0].Response["temp_c"]) != "23" {
			t.Errorf("turn 1: the tool should have reported 23 this time, got %+v", r)
		}
		for i := range want.Turns {
			if a, b := canonical(t, want.Turns[i].Final), canonical(t, got.Turns[i].Final); !bytes.Equal(a, b) {
				t.Errorf("turn %d: lenient replay should serve the recorded answers:\nrecorded %s\nreplayed %s", i+1, a, b)
			}
		}
	})
}

// requireADK returns the path of node, or skips (fails under CI) when node
// or the pinned @google/adk package is not installed.
func requireADK(t *testing.T, root string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	pkg := filepath.Join(root, "e2e", "adk", "node_modules", "@google", "adk")
	if _, err := os.Stat(pkg); err != nil {
		testutil.Require(t, pkg+" (run 'make npm-deps')")
	}
	return node
}

// adkEnv is childEnv without the other variables that change which key,
// backend or temperature the ADK agent uses, plus extra.
func adkEnv(extra ...string) []string {
	var env []string
	for _, kv := range childEnv() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TOOL_TEMP" || strings.HasPrefix(k, "GOOGLE_GENAI_") || strings.HasPrefix(k, "OTEL_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// adkRun is what agent.mjs prints: per user turn, what ADK's events showed.
type adkRun struct {
	Turns []struct {
		User          string
		FunctionCalls []struct {
			Author, Name string
			Args         map[string]any
		}
		FunctionResponses []struct {
			Author, Name string
			Response     map[string]any
		}
		Transfers []string
		Final     []struct{ Author, Text string }
	}
}

func decodeADKRun(t *testing.T, out map[string]json.RawMessage) adkRun {
	t.Helper()
	var run adkRun
	b, _ := json.Marshal(out)
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("agent output: %v\n%s", err, b)
	}
	if len(run.Turns) != 2 {
		t.Fatalf("agent output: want 2 turns, got %d:\n%s", len(run.Turns), b)
	}
	return run
}

// checkADKRun makes sure the recorded run really went through the tool
// call and the transfer, so that comparing it with the replay means
// something.
func checkADKRun(t *testing.T, out map[string]json.RawMessage) {
	t.Helper()
	run := decodeADKRun(t, out)
	t1, t2 := run.Turns[0], run.Turns[1]
	if t1.User != adkTurn1 || t2.User != adkTurn2 {
		t.Errorf("agent output: turns %q and %q, want %q and %q", t1.User, t2.User, adkTurn1, adkTurn2)
	}
	if c := t1.FunctionCalls; len(c) != 1 || c[0].Author != rootAgent || c[0].Name != "get_weather" || c[0].Args["city"] != "Paris" {
		t.Errorf("turn 1: want one call get_weather({city: Paris}) by %s, got %+v", rootAgent, c)
	}
	if f := t1.Final; len(f) != 1 || f[0].Author != rootAgent || !strings.Contains(f[0].Text, "18") {
		t.Errorf("turn 1: want one final text by %s with the tool's 18°C, got %+v", rootAgent, f)
	}
	if c := t2.FunctionCalls; len(c) != 1 || c[0].Author != rootAgent || c[0].Name != "transfer_to_agent" {
		t.Errorf("turn 2: want one call transfer_to_agent by %s, got %+v", rootAgent, c)
	}
	if !slices.Equal(t2.Transfers, []string{subAgent}) {
		t.Errorf("turn 2: want a transfer to %s, got %v", subAgent, t2.Transfers)
	}
	if f := t2.Final; len(f) != 1 || f[0].Author != subAgent || f[0].Text == "" {
		t.Errorf("turn 2: want one final text by %s, got %+v", subAgent, f)
	}
}

// checkADKCassette checks how adkproxy organised the recording: one
// session, one invocation per user turn, each step under its agent, and the
// tool call and its result in turn 1's trajectories.
func checkADKCassette(t *testing.T, c *cassettes.Cassette) {
	t.Helper()
	type step struct {
		place cassettes.Place
		traj  cassettes.Trajectory
	}
	invocations := map[int][]step{}
	var skeleton strings.Builder
	for i, x := range c.Exchanges {
		p := x.Place
		if p == nil {
			t.Errorf("exchange %d (%s %s) has no place; every request of the agent is a model call", i+1, x.Request.Method, x.Request.Path)
			continue
		}
		tr := wire.StepOf(x)
		fmt.Fprintf(&skeleton, "\n  session %d invocation %d (%q) step %d agent %s: calls %v results %v text %q",
			p.Session, p.Invocation, p.User, p.Step, p.Agent, tr.ToolCalls, tr.ToolResults, tr.Text)
		if p.Session != 1 {
			t.Errorf("exchange %d is in session %d, want 1: both turns ran in one ADK session", i+1, p.Session)
		}
		invocations[p.Invocation] = append(invocations[p.Invocation], step{*p, tr})
	}
	t.Logf("cassette structure:%s", skeleton.String())
	if len(c.Exchanges) != adkCalls {
		t.Errorf("the cassette holds %d exchanges, want %d", len(c.Exchanges), adkCalls)
	}
	if len(invocations) != 2 || invocations[1] == nil || invocations[2] == nil {
		t.Errorf("want exactly invocations 1 and 2 (one per user turn), got %d invocation(s)", len(invocations))
		return
	}
	for id, user := range map[int]string{1: adkTurn1, 2: adkTurn2} {
		for _, s := range invocations[id] {
			if s.place.User != user {
				t.Errorf("invocation %d: user text %q, want %q", id, s.place.User, user)
			}
		}
	}

	// Turn 1: weather_agent calls get_weather, then gets its result.
	call, result := -1, -1
	for i, s := range invocations[1] {
		if s.place.Agent != rootAgent {
			t.Errorf("invocation 1, step %d: agent %q, want %s only", s.place.Step, s.place.Agent, rootAgent)
		}
		if slices.ContainsFunc(s.traj.ToolCalls, func(c cassettes.ToolCall) bool { return c.Name == "get_weather" && c.Args["city"] == "Paris" }) && call < 0 {
			call = i
		}
		if slices.ContainsFunc(s.traj.ToolResults, func(r cassettes.ToolResult) bool {
			return r.Name == "get_weather" && fmt.Sprint(r.Response["temp_c"]) == "18"
		}) {
			result = i
		}
	}
	if call < 0 || result <= call {
		t.Errorf("invocation 1: want a step calling get_weather({city: Paris}) and a later step carrying its result (18°C); call at %d, result at %d", call, result)
	}

	// Turn 2: weather_agent transfers, travel_agent answers.
	agents := map[string]bool{}
	for _, s := range invocations[2] {
		agents[s.place.Agent] = true
		switch s.place.Agent {
		case rootAgent:
			if !slices.ContainsFunc(s.traj.ToolCalls, func(c cassettes.ToolCall) bool { return c.Name == "transfer_to_agent" }) {
				t.Errorf("invocation 2: the %s step should call transfer_to_agent, got %+v", rootAgent, s.traj.ToolCalls)
			}
		case subAgent:
			if s.traj.Text == "" {
				t.Errorf("invocation 2: the %s step should answer with text", subAgent)
			}
		default:
			t.Errorf("invocation 2, step %d: unexpected agent %q", s.place.Step, s.place.Agent)
		}
	}
	if !agents[rootAgent] || !agents[subAgent] {
		t.Errorf("invocation 2 should hold steps of both %s and %s (the transfer), got agents %v", rootAgent, subAgent, agents)
	}
}
