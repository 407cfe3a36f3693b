package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// corpusCases lists every case folder of the shared corpus copy.
func corpusCases(t *testing.T) (root string, cases []Case) {
	t.Helper()
	root = testutil.SharedDir(t, "fixtures", "adk-conformance")
	cases, err := Cases(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 4 {
		t.Fatalf("found %d cases under %s, want at least the 4 copied ones", len(cases), root)
	}
	return root, cases
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
