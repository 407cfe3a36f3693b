// The ADK for Python demo agent under go test: its shipped cassettes
// replay offline, a fresh recording from adkproxy fake equals them, and ls
// and score read them (README, "ADK for Python").
package adkpython_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/adkpytest"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// wantLines are what the agent prints on the shipped recording.
var wantLines = []string{
	"trip_planner calls get_weather({'city': 'Lisbon'})",
	"trip_planner calls get_local_time({'city': 'Lisbon'})",
	"trip_planner: It is 21°C and sunny in Lisbon, and the local time is 14:05.",
	"trip_planner calls transfer_to_agent({'agent_name': 'packing_advisor'})",
	"packing_advisor: Light layers, sunglasses, sunscreen and comfortable walking shoes for a sunny 21°C in Lisbon.",
}

// TestADKPythonAgent: the shipped cassette replays the agent with no model
// and no key (4 of 4 calls matched); recording it again from adkproxy fake
// gives the same ls, provenance line included; score with the example's
// config (adk_version 1.18) passes.
func TestADKPythonAgent(t *testing.T) {
	env := adkpytest.Env(t, ".")
	bin := testutil.BuildAdkproxy(t)

	out := adkproxy(t, env, bin, "replay", "--cassettes", "cassettes", "--", "python3", "main.py")
	for _, want := range append(wantLines, "replayed 4 request(s): 4 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
		if !strings.Contains(out, want) {
			t.Errorf("replay: the output lacks %q:\n%s", want, out)
		}
	}

	fresh := filepath.Join(t.TempDir(), "cassettes")
	fake := startFake(t, bin, "script.yaml")
	adkproxy(t, env, bin, "record", "--cassettes", fresh, "--upstream", fake, "--", "python3", "main.py")
	shipped := adkproxy(t, env, bin, "ls", "cassettes")
	again := adkproxy(t, env, bin, "ls", fresh)
	// Every line the same, the provenance's included (upstream local,
	// google-genai-sdk and google-adk at the vendored versions, the model
	// asked for and answered), but for what must differ between two
	// recordings: when, by which build of adkproxy, on which python3.
	if testutil.SteadyProvenance(strings.ReplaceAll(again, fresh, "cassettes")) != testutil.SteadyProvenance(shipped) {
		t.Errorf("a fresh recording differs from the shipped one (scripts/record-demo.sh re-records it):\n%s\n----- shipped -----\n%s", again, shipped)
	}
	for _, want := range []string{"  recorded ", " · upstream local · clients google-genai-sdk/1.51.0, gl-python/", " · frameworks google-adk/1.18.0 · models gemini-2.5-flash\n"} {
		if !strings.Contains(shipped, want) || !strings.Contains(again, want) {
			t.Errorf("the provenance line of ls lacks %q:\n%s\n----- shipped -----\n%s", want, again, shipped)
		}
	}
	for _, want := range []string{"agents: trip_planner, packing_advisor", `transfer_to_agent(agent_name="packing_advisor")`} {
		if !strings.Contains(shipped, want) {
			t.Errorf("ls lacks %q:\n%s", want, shipped)
		}
	}

	score := adkproxy(t, env, bin, "score", "--cassettes", "cassettes", "--expected", "trip.evalset.json", "--config", "eval_config.json")
	if !strings.Contains(score, "PASSED: 1 of 1 case passed") {
		t.Errorf("score:\n%s", score)
	}
}

// adkproxy runs the binary with env and returns its output; a failure
// fails the test.
func adkproxy(t *testing.T, env []string, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("adkproxy %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// startFake serves script with adkproxy fake until the test ends and
// returns its base URL.
func startFake(t *testing.T, bin, script string) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	fake := exec.Command(bin, "fake", "--script", script, "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Signal(os.Interrupt); fake.Wait() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if addr, _ := os.ReadFile(addrFile); len(addr) > 0 {
			return "http://" + strings.TrimSpace(string(addr))
		}
	}
	t.Fatal("adkproxy fake did not write its address")
	return ""
}
