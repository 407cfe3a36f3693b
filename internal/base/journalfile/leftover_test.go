// A recording never deletes a leftover journal it did not read back
// whole: it keeps it under another name, or refuses to record over one
// it cannot read.

package journalfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// leftoverOf writes a journal of one record for the cassette at path
// (whose YAML holds base), as a killed recording leaves it.
func leftoverOf(t *testing.T, path, base string) []byte {
	t.Helper()
	if base != "" {
		os.WriteFile(path, []byte(base), 0o644)
	}
	j, err := Open(path, "c", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append([]byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	data, err := os.ReadFile(Path(path))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// keptBeside is the one journal set aside beside the cassette at path,
// or "".
func keptBeside(t *testing.T, path string) string {
	t.Helper()
	kept, _ := filepath.Glob(Path(path) + ".*")
	if len(kept) > 1 {
		t.Fatalf("more than one journal kept: %v", kept)
	}
	if len(kept) == 0 {
		return ""
	}
	return kept[0]
}

// TestOpenKeepsALeftoverJournalItDidNotRead: a new journal over one a
// recording never read back (a garbage file, a journal with bytes after
// its last whole record, one no load folded in) keeps the old one under
// another name, byte for byte; only one that holds nothing is replaced.
func TestOpenKeepsALeftoverJournalItDidNotRead(t *testing.T) {
	for name, make := range map[string]func(t *testing.T, path string) []byte{
		"garbage": func(t *testing.T, path string) []byte {
			b := []byte("not a journal at all\n12 deadbeef\nxx\n")
			os.WriteFile(Path(path), b, 0o644)
			return b
		},
		"bad header": func(t *testing.T, path string) []byte {
			b := []byte(Magic + " extend complete=1 nohash\n")
			os.WriteFile(Path(path), b, 0o644)
			return b
		},
		"bytes after the last whole record": func(t *testing.T, path string) []byte {
			b := append(bytes.TrimRight(leftoverOf(t, path, "a: 1\n"), "\x00"), "7 00000000\n{\"n\":2}\n"...)
			os.WriteFile(Path(path), b, 0o644)
			return b
		},
		"never folded in": func(t *testing.T, path string) []byte {
			return leftoverOf(t, path, "a: 1\n")
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			want := make(t, path)
			j, err := Open(path, "c", true)
			if err != nil {
				t.Fatal(err)
			}
			j.Close()
			kept := keptBeside(t, path)
			if kept == "" {
				t.Fatalf("the leftover journal was deleted")
			}
			if got, _ := os.ReadFile(kept); !bytes.Equal(got, want) {
				t.Errorf("%s holds %q, want %q", kept, got, want)
			}
			if !strings.Contains(kept, ".unread-") {
				t.Errorf("kept as %s, want <journal>.unread-<time>", kept)
			}
		})
	}
}

// TestSettleRemovesOnlyWhatWasReadBack: once a load's exchanges are
// saved (folded), a journal whose every record was whole is removed, as
// is one that holds nothing (cut before its header was synced) or one the
// YAML was saved after (stale); any other is kept.
func TestSettleRemovesOnlyWhatWasReadBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, path string)
		folded bool
		kept   bool
	}{
		{"whole, folded", func(t *testing.T, path string) { leftoverOf(t, path, "a: 1\n") }, true, false},
		{"whole, not folded", func(t *testing.T, path string) { leftoverOf(t, path, "a: 1\n") }, false, true},
		{"stale", func(t *testing.T, path string) {
			leftoverOf(t, path, "a: 1\n")
			os.WriteFile(path, []byte("a: 2\n"), 0o644) // saved after the journal began
		}, false, false},
		{"empty", func(t *testing.T, path string) { os.WriteFile(Path(path), nil, 0o644) }, false, false},
		{"zeros", func(t *testing.T, path string) { os.WriteFile(Path(path), make([]byte, 4096), 0o644) }, false, false},
		{"header cut short", func(t *testing.T, path string) {
			os.WriteFile(Path(path), []byte(Magic+" replace compl"), 0o644)
		}, false, false},
		{"torn, folded", func(t *testing.T, path string) {
			b := leftoverOf(t, path, "a: 1\n")
			os.WriteFile(Path(path), append(bytes.TrimRight(b, "\x00"), "9 abc"...), 0o644)
		}, true, true},
		{"garbage, folded", func(t *testing.T, path string) { os.WriteFile(Path(path), []byte("hello\n"), 0o644) }, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			tc.make(t, path)
			kept, err := Settle(path, tc.folded)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(Path(path)); err == nil {
				t.Errorf("the journal is still at its path")
			}
			if got := keptBeside(t, path); (got != "") != tc.kept || got != kept {
				t.Errorf("kept %q (Settle said %q), want kept %v", got, kept, tc.kept)
			}
		})
	}
}

// TestSettleRefusesAJournalItCannotRead: a leftover journal over the size
// cap, or not a regular file, is neither read nor touched: Settle (and
// Open) refuse it naming the file and what to do.
func TestSettleRefusesAJournalItCannotRead(t *testing.T) {
	for name, make := range map[string]func(jp string) error{
		"too large": func(jp string) error {
			f, err := os.Create(jp)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(3 << 30) // sparse
		},
		"fifo": func(jp string) error { return syscall.Mkfifo(jp, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := make(Path(path)); err != nil {
				t.Skipf("cannot make it here: %v", err)
			}
			before, _ := os.Lstat(Path(path))
			_, err := Settle(path, false)
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), Path(path)) || !strings.Contains(err.Error(), "move it") {
				t.Errorf("Settle: %v", err)
			}
			if _, err := Open(path, "c", true); !errors.Is(err, ErrUnreadable) {
				t.Errorf("Open: %v", err)
			}
			after, err := os.Lstat(Path(path))
			if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
				t.Errorf("the journal was touched: %v", err)
			}
			if kept := keptBeside(t, path); kept != "" {
				t.Errorf("set aside as %s", kept)
			}
		})
	}
}
