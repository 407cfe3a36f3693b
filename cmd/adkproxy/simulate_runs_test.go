package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// simulate --num-runs 2 plays each scenario twice, each run in a session,
// simulated-user cassette and session file of its own, against ADK-JS
// under adkproxy record; replayed with no key to the same transcript; and
// score --num-runs 2 pairs both recorded sessions of each scenario case
// with it.
func TestSimulateNumRunsThenScorePoolsThem(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	dir := testutil.OutDir(t)
	scen := writeTestFile(t, dir, "scenarios.json", adkjsScenarios)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {}, "user_simulator_config": {"max_allowed_invocations": 3}}`)
	agentDir, simDir := filepath.Join(dir, "agent"), filepath.Join(dir, "sim")
	args := func(server, out string, extra ...string) []string {
		return append([]string{"simulate", "--server", server, "--app", "tools_agent_002", "--scenarios", scen, "--config", cfg,
			"--num-runs", "2", "--out", filepath.Join(dir, out), "--sim-cassettes", simDir}, extra...)
	}
	agentUp := httptest.NewServer(&terseWhenTold{})
	userUp := httptest.NewServer(&fakejudge.Handler{Script: bookingUser})
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", agentDir, "--upstream", agentUp.URL)
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(srv.url, "recorded", "--sim-base-url", userUp.URL)...)
	srv.stop(t)
	userUp.Close()
	if rec.code != 0 {
		t.Fatalf("simulate --num-runs 2: exit %d\n%s\nserver:\n%s", rec.code, rec.stderr, srv.stderr.String())
	}
	sessions, _ := filepath.Glob(filepath.Join(dir, "recorded", simulate.SessionsDir, "*.json"))
	simCassettes, _ := filepath.Glob(filepath.Join(simDir, "*.yaml"))
	if len(sessions) != 4 || len(simCassettes) != 4 {
		t.Errorf("%d session files %v, %d simulated-user cassettes %v; want 4 each", len(sessions), sessions, len(simCassettes), simCassettes)
	}
	if set := readFile(t, filepath.Join(dir, "recorded", simulate.EvalSetFile)); strings.Count(set, `"eval_id"`) != 2 {
		t.Errorf("the simulated eval set should hold each scenario once:\n%s", set)
	}

	agentUp.Close()
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", agentDir)
	rep := adkproxy(t, nil, args(srv.url, "replayed")...)
	srv.stop(t)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\n%s", rep.code, rep.stderr)
	}
	if got, want := readFile(t, filepath.Join(dir, "replayed", simulate.QALogFile)), readFile(t, filepath.Join(dir, "recorded", simulate.QALogFile)); got != want {
		t.Errorf("the replayed transcript differs:\n%s\n---\n%s", got, want)
	}

	evalset := filepath.Join(dir, "recorded", simulate.EvalSetFile)
	if _, err := os.Stat(evalset); err != nil {
		t.Fatal(err)
	}
	score := adkproxy(t, nil, "score", "--cassettes", agentDir, "--expected", evalset, "--num-runs", "2", "--config",
		writeTestFile(t, dir, "score.json", `{"criteria": {"tool_trajectory_avg_score": 1.0}}`))
	if score.code != 0 || strings.Count(score.stdout, "2 runs pooled") != 2 || strings.Contains(score.stderr, "not scored") {
		t.Errorf("score --num-runs 2: exit %d\n%s\n%s", score.code, score.stdout, score.stderr)
	}
}
