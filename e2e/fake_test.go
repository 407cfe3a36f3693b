package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestJSAgentRecordedFromTheFake: an agent on the official JS client,
// recorded from `adkproxy fake` with no key anywhere, replays with the fake
// gone and prints exactly what it printed while recording.
func TestJSAgentRecordedFromTheFake(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	bin := testutil.BuildAdkproxy(t)
	dir := testutil.OutDir(t)

	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithTimeout(t.Context(), runDeadline)
	defer cancel()
	fake := exec.CommandContext(ctx, bin, "fake", "--script", "e2e/js/fakeagent.yaml", "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	fake.Dir = root
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			fake.Process.Signal(os.Interrupt)
			fake.Wait()
		}
	}
	defer stop()
	var addr []byte
	for deadline := time.Now().Add(30 * time.Second); len(addr) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		addr, _ = os.ReadFile(addrFile)
	}
	if len(addr) == 0 {
		t.Fatal("adkproxy fake did not write its address")
	}

	rec := runAdkproxy(t, root, bin, childEnv(), "record", "--cassettes", dir, "--upstream", "http://"+strings.TrimSpace(string(addr)), "--", node, "e2e/js/fakeagent.mjs")
	if rec.code != 0 {
		t.Fatalf("adkproxy record exited %d, want 0; stderr:\n%s", rec.code, rec.stderr)
	}
	recorded := parseScenario(t, "record", rec.stdout)
	for _, want := range []string{`"It is 18 degrees in Paris."`, `"Tokyo is at "`, `"events":2`, `"promptTokenCount":`, `"finishReason":"STOP"`} {
		if !strings.Contains(rec.stdout, want) {
			t.Errorf("the recorded run lacks %s:\n%s", want, rec.stdout)
		}
	}
	if _, ok := recorded["tokens"]; !ok {
		t.Errorf("no token count: %s", rec.stdout)
	}
	stop()
	replayAsRecorded(t, root, bin, childEnv(), dir, recorded, node, "e2e/js/fakeagent.mjs")
}
