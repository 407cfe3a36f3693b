package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/livescenario"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// jsLiveScenario is run by node from the repository root.
const jsLiveScenario = "e2e/js/live.mjs"

// goLiveChild makes this test binary run the Go Live scenario instead of
// the tests (see TestGoLiveChild).
const goLiveChild = "ADKPROXY_E2E_GOLIVE_CHILD"

// TestJSGenaiLiveRecordThenReplay: a Live session with a tool call from the
// official JS client (ws:// from the http:// base URL adkproxy gives it)
// records once, replays with the upstream stopped and no key to the same
// output without an upstream connection, a changed frame fails the replay
// with 1008 and exit 76, and ls shows the turns as invocations.
func TestJSGenaiLiveRecordThenReplay(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	liveRecordThenReplay(t, root, []string{node, jsLiveScenario}, nil)
}

// TestGoGenaiLiveOverTLS: the same through the official Go client, which
// always dials wss:// for an http:// base URL: it reaches adkproxy's
// listener over TLS, trusting the local CA through the SSL_CERT_FILE
// bundle adkproxy gives the command it wraps.
func TestGoGenaiLiveOverTLS(t *testing.T) {
	root := testutil.RepoRoot()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	liveRecordThenReplay(t, root, []string{self, "-test.run=^TestGoLiveChild$"}, []string{goLiveChild + "=1"})
}

// TestGoLiveChild is the Go client's side of TestGoGenaiLiveOverTLS, run
// as the command adkproxy wraps. The base URL and key come from the
// environment, as adkproxy sets it.
func TestGoLiveChild(t *testing.T) {
	if os.Getenv(goLiveChild) != "1" {
		t.Skip("runs only as the command of TestGoGenaiLiveOverTLS")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen, err := livescenario.Run(ctx, livescenario.Options{City: os.Getenv("SCENARIO_CITY")})
	out := map[string]any{"seen": seen, "base": strings.SplitN(os.Getenv("GOOGLE_GEMINI_BASE_URL"), ":", 2)[0]}
	if err != nil {
		out["error"] = err.Error()
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	if err != nil && os.Getenv("SCENARIO_KEEP_GOING") != "1" {
		os.Exit(1)
	}
	os.Exit(0)
}

func liveRecordThenReplay(t *testing.T, root string, command, env []string) {
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)
	upstream := &fakegemini.Handler{}
	up := testutil.StartCounting(t, upstream, nil)

	rec := runAdkproxy(t, root, bin, childEnv(append(env, "GOOGLE_API_KEY="+testutil.SecretAPIKey)...),
		append([]string{"record", "--cassettes", dir, "--upstream", up.URL, "--"}, command...)...)
	if rec.code != 0 {
		t.Fatalf("adkproxy record exited %d, want 0; stdout %s\nstderr:\n%s", rec.code, rec.stdout, rec.stderr)
	}
	recorded := parseScenario(t, "record", rec.stdout)
	if _, failed := recorded["error"]; failed || !strings.Contains(string(recorded["seen"]), `get_weather`) || !strings.Contains(string(recorded["seen"]), "It is 18°C in Paris, sunny.") {
		t.Fatalf("the recorded session did not go through the tool call: %s", rec.stdout)
	}
	frames := upstream.LiveFrames()
	if len(frames) != 4 || !strings.Contains(frames[2], "toolResponse") {
		t.Errorf("the upstream got %d client frames, want setup, question, tool response and thanks: %q", len(frames), frames)
	}
	if len(filesUnder(t, dir)) == 0 {
		t.Fatalf("adkproxy record wrote no cassette under %s", dir)
	}
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key appears %d time(s) under %s", n, dir)
	}
	if strings.Contains(rec.stdout+rec.stderr, testutil.SecretAPIKey) {
		t.Errorf("the API key appears in the output of adkproxy record")
	}
	// JS sends the key in the query, Go in x-goog-api-key.
	if reqs := upstream.Requests(); len(reqs) != 1 || reqs[0].Header.Get("X-Goog-Api-Key") != testutil.SecretAPIKey && !strings.Contains(reqs[0].Query, testutil.SecretAPIKey) {
		t.Errorf("the upstream should have seen one Live upgrade carrying the client's key, got %+v", reqs)
	}
	if t.Failed() {
		t.FailNow()
	}
	up.Close()
	conns := up.Conns()

	replayAsRecorded(t, root, bin, childEnv(env...), dir, recorded, command...)
	if up.Conns() != conns {
		t.Errorf("replay opened %d upstream connections", up.Conns()-conns)
	}

	t.Run("ls shows the live turns as invocations", func(t *testing.T) {
		ls := runAdkproxy(t, root, bin, childEnv(), "ls", dir)
		for _, want := range []string{`invocation 1  "What is the weather in Paris?"`, `invocation 2  "Thanks"`, "step 0  live  → get_weather(city=\"Paris\")", `step 1  live  ← get_weather → "It is 18°C in Paris, sunny."`} {
			if !strings.Contains(ls.stdout, want) {
				t.Errorf("adkproxy ls does not show %q:\n%s", want, ls.stdout)
			}
		}
	})
	t.Run("changed frame", func(t *testing.T) {
		res := runAdkproxy(t, root, bin, childEnv(append(env, "SCENARIO_CITY=Berlin", "SCENARIO_KEEP_GOING=1")...),
			append([]string{"replay", "--cassettes", dir, "--"}, command...)...)
		if res.code != exitUnmatched {
			t.Errorf("adkproxy replay exited %d, want %d; stderr:\n%s", res.code, exitUnmatched, res.stderr)
		}
		for _, want := range []string{"mismatched", "clientContent.turns[0].parts[0].text", "Berlin"} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("adkproxy's stderr does not mention %q:\n%s", want, res.stderr)
			}
		}
		if !strings.Contains(res.stdout, "1008") {
			t.Errorf("the client did not see close code 1008: %s", res.stdout)
		}
	})
}
