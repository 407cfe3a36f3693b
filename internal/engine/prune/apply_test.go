package prune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// saved writes a cassette of four recordings into dir and loads the folder
// back, as prune does.
func saved(t *testing.T, dir string) map[string]*cassettes.Cassette {
	t.Helper()
	path := filepath.Join(dir, "c.yaml")
	c := &cassettes.Cassette{Name: "c", Exchanges: []*cassettes.Exchange{
		exchange(1, 0, 200), exchange(1, 1, 200), exchange(1, 2, 200),
	}}
	if err := cassettes.Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// TestApplyWritesThePlan: the changed cassette is written in place,
// without the removed recordings, and reads back as such.
func TestApplyWritesThePlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	loaded := saved(t, dir)
	plan := Unused(loaded, proxy.Report{Mode: "replay", Outcomes: []matcher.Outcome{unused(1, 2)}})
	if err := Apply(dir, loaded, plan); err != nil {
		t.Fatal(err)
	}
	again, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if xs := again["c"].Exchanges; len(xs) != 2 || xs[0].Place.Step != 0 || xs[1].Place.Step != 1 {
		t.Errorf("after prune the cassette holds %d recording(s), want steps 0 and 1", len(xs))
	}
}

// TestApplyRefusesASymlink: a cassette that is a symbolic link is refused,
// never written through: the file it points to stays as it was.
func TestApplyRefusesASymlink(t *testing.T) {
	t.Parallel()
	dir, elsewhere := t.TempDir(), t.TempDir()
	saved(t, elsewhere)
	before, _ := os.ReadFile(filepath.Join(elsewhere, "c.yaml"))
	if err := os.Symlink(filepath.Join(elsewhere, "c.yaml"), filepath.Join(dir, "c.yaml")); err != nil {
		t.Fatal(err)
	}
	loaded, err := cassettes.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan := Unused(loaded, proxy.Report{Mode: "replay", Outcomes: []matcher.Outcome{unused(1, 2)}})
	if len(plan.Changed) != 1 {
		t.Fatalf("plan: %+v", plan)
	}
	if err := Apply(dir, loaded, plan); err == nil || !strings.HasPrefix(err.Error(), "prune: ") {
		t.Errorf("a cassette that is a symlink: %v, want it refused", err)
	}
	if after, _ := os.ReadFile(filepath.Join(elsewhere, "c.yaml")); string(after) != string(before) {
		t.Error("the file the link points to was written through")
	}
}
