package e2e_test

import (
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestReplayKeyQuietsTheJSClient: in replay with no key of the user's, the
// JS client finds the placeholder key in its environment without warning
// that both GOOGLE_API_KEY and GEMINI_API_KEY are set.
func TestReplayKeyQuietsTheJSClient(t *testing.T) {
	root := testutil.RepoRoot()
	node := requireJSClient(t, root)
	bin := testutil.BuildAdkproxy(t)
	res := runAdkproxy(t, root, bin, childEnv(), "replay", "--cassettes", t.TempDir(), "--", node, "e2e/js/keycheck.mjs")
	if res.code != 0 || !strings.HasPrefix(res.stdout, `{"apiKey":"adkproxy-replay-no-key"}`) {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if strings.Contains(res.stderr, "Both GOOGLE_API_KEY and GEMINI_API_KEY") {
		t.Errorf("the client warns about two keys:\n%s", res.stderr)
	}
}
