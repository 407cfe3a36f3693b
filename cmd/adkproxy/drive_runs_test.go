package main

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// drive --num-runs 3 plays an eval set's case three times against ADK-JS's
// API server under adkproxy record; score --num-runs 3 pairs the three
// recorded sessions with the case and pools them.
func TestDriveNumRunsThenScorePoolsThem(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(corpus, "tests", "tool", "function_001", "spec.yaml")
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	golden, runs, out := t.TempDir(), testutil.OutDir(t), t.TempDir()
	key := []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}

	srv := startWrappedServer(t, agents, key, "record", "--cassettes", golden, "--upstream", up.URL)
	if res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec); res.code != 0 {
		t.Fatalf("drive exited %d: %s", res.code, res.stderr)
	}
	srv.stop(t)
	evalset := filepath.Join(out, "golden.evalset.json")
	if res := adkproxy(t, nil, "export", "--cassettes", golden, "--out", evalset); res.code != 0 {
		t.Fatalf("export exited %d: %s", res.code, res.stderr)
	}

	srv = startWrappedServer(t, agents, key, "record", "--cassettes", runs, "--upstream", up.URL)
	sessions := filepath.Join(out, "sessions.json")
	res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--evalset", evalset, "--num-runs", "3", "--out", sessions)
	srv.stop(t)
	if res.code != 0 {
		t.Fatalf("drive --num-runs 3 exited %d: %s", res.code, res.stderr)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(readFile(t, sessions)), &list); err != nil || len(list) != 3 || list[0]["id"] == list[1]["id"] {
		t.Fatalf("drive --num-runs 3 wrote %d sessions (%v), want 3 distinct", len(list), err)
	}

	res = adkproxy(t, nil, "score", "--cassettes", runs, "--expected", evalset, "--num-runs", "3")
	if res.code != 0 || !strings.Contains(res.stdout, "3 runs pooled") || strings.Contains(res.stderr, "not scored") {
		t.Fatalf("score --num-runs 3: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
}
