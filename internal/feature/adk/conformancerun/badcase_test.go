package conformancerun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/adk/conformancerun"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestOnlyCaseUnimportableFailsWithItsOwnReason: when a corpus's only case
// cannot be imported (its recordings nest 9,900 levels deep), the run still
// happens and the case fails with its file:line reason, not with "the
// cassette folder does not exist; record into it first".
func TestOnlyCaseUnimportableFailsWithItsOwnReason(t *testing.T) {
	shared := testutil.SharedDir(t, "fixtures", "adk-conformance")
	corpus := t.TempDir()
	if err := os.CopyFS(filepath.Join(corpus, "agents"), os.DirFS(filepath.Join(shared, "agents"))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(corpus, "tests", "core", "deep_001")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(shared, "tests", "core", "sys_instruction_001"))); err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"a": `, 9900) + `1` + strings.Repeat(`}`, 9900)
	if err := os.WriteFile(filepath.Join(dir, "generated-recordings.yaml"), []byte("recordings:\n  - x: "+deep+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := conformancerun.Run(t.Context(), conformancerun.Options{
		Corpus: corpus, ServerCmd: "echo no server needed for {agents_dir} on {port}; exit 3", Work: t.TempDir(),
	})
	if err != nil {
		t.Fatalf("the run did not happen: %v", err)
	}
	if len(res.Cases) != 1 || res.Cases[0].Status != conformancerun.Fail {
		t.Fatalf("cases = %+v", res.Cases)
	}
	if r := res.Cases[0].Reason; !strings.Contains(r, "generated-recordings.yaml:2") || !strings.Contains(r, "levels deep") {
		t.Errorf("reason %q: want the recordings file:line and why", r)
	}
}
