package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestDriveRecordsGoldenRunOfADKJSServer is the "done when" for
// drive: ADK-JS's API server, serving a corpus agent, runs under adkproxy
// record against the scripted upstream while drive plays the case's spec;
// under adkproxy replay, with the upstream gone, drive gets the same
// session (ids and timestamps aside); export turns the cassette into an
// eval set that score then scores the recording against, and drive
// --evalset plays that eval set against the replaying server.
func TestDriveRecordsGoldenRunOfADKJSServer(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	agents := filepath.Join(t.TempDir(), "agents")
	if err := adkjs.WriteAgentsDir(filepath.Join(corpus, "agents"), agents, "tools_agent_002"); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(corpus, "tests", "tool", "function_001", "spec.yaml")
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	dir := testutil.OutDir(t)
	out := t.TempDir()

	// Record.
	recorded := filepath.Join(out, "recorded.json")
	srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL)
	res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec, "--user", "u1", "--out", recorded)
	if res.code != 0 {
		t.Fatalf("drive under record exited %d: %s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	srv.stop(t)
	if len(upstream.Requests()) < 2 {
		t.Fatalf("the upstream got %d requests, want a tool round trip", len(upstream.Requests()))
	}
	rec := readSession(t, recorded)
	if rec["appName"] != "tools_agent_002" || rec["userId"] != "u1" {
		t.Errorf("recorded session = %v", rec)
	}
	if !strings.Contains(mustJSON(t, rec), `"functionCall"`) || !strings.Contains(mustJSON(t, rec), `"functionResponse"`) {
		t.Fatalf("the recorded session has no tool call: %s", mustJSON(t, rec))
	}

	// Replay, upstream gone.
	up.Close()
	replayed := filepath.Join(out, "replayed.json")
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", dir)
	res = adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--spec", spec, "--user", "u1", "--out", replayed)
	if res.code != 0 {
		t.Fatalf("drive under replay exited %d: %s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	if got, want := stripRunIDs(readSession(t, replayed)), stripRunIDs(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("replayed session differs from the recorded one:\n got %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}

	if code := srv.stop(t); code == exitUnmatched {
		t.Fatalf("replay reported an unmatched request:\n%s", srv.stderr.String())
	}

	// The golden run as an eval set, played again by drive --evalset under
	// a fresh replay.
	evalset := filepath.Join(out, "golden.evalset.json")
	if res := adkproxy(t, nil, "export", "--cassettes", dir, "--out", evalset); res.code != 0 {
		t.Fatalf("export exited %d: %s", res.code, res.stderr)
	}
	fromEvalset := filepath.Join(out, "evalset-sessions.json")
	srv = startWrappedServer(t, agents, nil, "replay", "--cassettes", dir)
	res = adkproxy(t, nil, "drive", "--server", srv.url, "--app", "tools_agent_002", "--evalset", evalset, "--user", "u1", "--out", fromEvalset)
	if res.code != 0 {
		t.Fatalf("drive --evalset under replay exited %d: %s\nserver:\n%s", res.code, res.stderr, srv.stderr.String())
	}
	if code := srv.stop(t); code == exitUnmatched {
		t.Fatalf("replay reported an unmatched request:\n%s", srv.stderr.String())
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(readFile(t, fromEvalset)), &list); err != nil || len(list) != 1 {
		t.Fatalf("drive --evalset wrote %d sessions (%v), want 1", len(list), err)
	}
	if got, want := stripRunIDs(list[0]), stripRunIDs(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("the eval set's session differs from the recorded one:\n got %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
	}

	// Score the recorded run against its own eval set: every criterion passes.
	res = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", evalset, "--format", "json")
	if res.code != 0 {
		t.Fatalf("score exited %d:\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, `"tool_trajectory_avg_score"`) || !strings.Contains(res.stdout, "validate_email") {
		t.Errorf("score's result does not show the tool trajectory:\n%s", res.stdout)
	}
}

func TestDriveUsageAndDataErrors(t *testing.T) {
	t.Parallel()
	diceEvalSet := filepath.Join(testutil.RepoRoot(), "scoring", "testdata", "evalsets", "dice_roller.evalset.json")
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"drive", "--app", "a", "--spec", "x"}, exitUsage, "--server and --app are required"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a"}, exitUsage, "exactly one of --spec and --evalset"},
		{[]string{"drive", "--server", "localhost:1", "--app", "a", "--spec", "x"}, exitUsage, "not an absolute http"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--spec", "/nonexistent/spec.yaml"}, exitDataErr, "/nonexistent/spec.yaml"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--evalset", diceEvalSet + ":nope"}, exitDataErr,
			`--evalset: ` + diceEvalSet + `: no eval case "nope" (its eval_ids: roll_and_check, scenario_case)`},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--evalset", diceEvalSet + ":scenario_case"}, exitDataErr,
			"has no eval case with a fixed conversation to play"},
		{[]string{"drive", "--server", "http://127.0.0.1:1", "--app", "a", "--evalset", filepath.Dir(spec)}, exitDataErr, "holds no eval set files"},
	} {
		res := adkproxy(t, nil, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tc.args, res.code, res.stderr, tc.code, tc.want)
		}
	}
	// A server that is not there: the URL is named.
	os.WriteFile(spec, []byte("agent: a\nuser_messages:\n  - text: hi\n"), 0o644)
	res := adkproxy(t, nil, "drive", "--server", "http://127.0.0.1:1", "--app", "a", "--spec", spec)
	if res.code != exitFailure || !strings.Contains(res.stderr, "http://127.0.0.1:1/apps/a/users/user/sessions") {
		t.Errorf("unreachable server: exit %d, stderr %q", res.code, res.stderr)
	}
}

// wrappedServer is adkproxy running ADK-JS's api_server as its command.
type wrappedServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	exited chan error
}

// startWrappedServer runs `adkproxy ARGS -- <ADK-JS api_server on agents>`
// and waits until the server answers.
func startWrappedServer(t *testing.T, agents string, env []string, args ...string) *wrappedServer {
	t.Helper()
	port := adkjstest.FreePort(t)
	server := adkjstest.ServerCommand(t, agents, port)
	cmd := adkproxyCmd(t, env, append(append(args, "--"), server...)...)
	s := &wrappedServer{cmd: cmd, url: "http://127.0.0.1:" + strconv.Itoa(port), stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	if err := adkjstest.WaitHealthy(t.Context(), s.url, s.exited); err != nil {
		t.Fatalf("%v\n%s", err, s.stderr.String())
	}
	return s
}

// stop sends SIGTERM to adkproxy (which passes it on to the server and
// writes its cassettes) and returns adkproxy's exit status.
func (s *wrappedServer) stop(t *testing.T) int {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute): // hang guard only
		t.Fatalf("adkproxy did not stop on SIGTERM:\n%s", s.stderr.String())
		return -1
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readSession(t *testing.T, path string) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stripRunIDs drops what a server makes up per run: ids, invocation ids
// and timestamps, at any depth.
func stripRunIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "id", "invocationId", "timestamp", "lastUpdateTime":
				continue
			}
			out[k] = stripRunIDs(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripRunIDs(x)
		}
		return out
	}
	return v
}

// TestDriveWritesTheSessionOfAFailedTurn: a turn the server fails exits 1
// naming the URL, the turn and the server's words, and the session the
// server kept is still written.
func TestDriveWritesTheSessionOfAFailedTurn(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/apps/a/users/user/sessions":
			io.WriteString(w, `{"id":"s1","appName":"a","userId":"user","state":{},"events":[]}`)
		case r.URL.Path == "/run_sse":
			io.WriteString(w, "data: {\"error\": \"tool exploded\"}\n\n")
		case r.URL.Path == "/apps/a/users/user/sessions/s1":
			io.WriteString(w, `{"id":"s1","appName":"a","userId":"user","state":{},"events":[{"author":"user","kept":true}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("agent: a\nuser_messages:\n  - text: hi\n"), 0o644)
	out := filepath.Join(t.TempDir(), "session.json")
	res := adkproxy(t, nil, "drive", "--server", srv.URL, "--app", "a", "--spec", spec, "--out", out)
	if res.code != exitFailure {
		t.Fatalf("exit %d, want 1; stderr %s", res.code, res.stderr)
	}
	for _, want := range []string{srv.URL + "/run_sse", "turn 1", "spec.yaml:3", "tool exploded"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not mention %q: %s", want, res.stderr)
		}
	}
	if s := readSession(t, out); !strings.Contains(mustJSON(t, s), `"kept":true`) {
		t.Errorf("the session the server kept was not written: %v", s)
	}
}
