package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// TestReleasedJournalReopensForTheNextAppend: a journal closed between
// exchanges (Release) appends the next one to the same file, and every
// exchange is recovered.
func TestReleasedJournalReopensForTheNextAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	j, err := Open(path, "c", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := j.Append(journalExchange(i)); err != nil {
			t.Fatal(err)
		}
		if err := j.Release(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := cassettes.Load(path)
	if err != nil || len(c.Exchanges) != 3 {
		t.Fatalf("recovered %v, %v; want 3 exchanges", c, err)
	}
}

// TestReleasedJournalRefusesAReplacedFile: if the journal's path names
// another file when it is reopened (here a link to a victim), nothing is
// written through it.
func TestReleasedJournalRefusesAReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	j, err := Open(path, "c", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Release()
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	os.Remove(journalfile.Path(path))
	if err := os.Symlink(victim, journalfile.Path(path)); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(journalExchange(1)); !errors.Is(err, cassettes.ErrWrite) {
		t.Fatalf("Append through a replaced journal: %v; want ErrWrite", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatalf("the victim was written: %q", b)
	}
}
