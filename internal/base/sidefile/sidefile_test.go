// Side files' names, folder, writing once, reading checked, removal.

package sidefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
)

func TestSideFileNamesCannotEscape(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"../one.yaml", "sha256-" + strings.Repeat("A", 64), "sha256-../../x", ""} {
		if _, err := Read(filepath.Join(root, "c.yaml"), name); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "not a side file name") {
			t.Errorf("Read(%q): %v; want ErrDamaged refusing the name", name, err)
		}
	}
}

func TestSideFileIsNeverWrittenOrReadThroughASymlink(t *testing.T) {
	root := t.TempDir()
	victim := t.TempDir()
	path := filepath.Join(root, "c.yaml")
	if err := os.Symlink(victim, Dir(path)); err != nil {
		t.Fatal(err)
	}
	data := []byte("some bytes")
	if _, err := Write(root, path, data); !errors.Is(err, safefile.ErrSymlink) {
		t.Fatalf("Write through a linked folder: %v; want safefile.ErrSymlink", err)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Fatalf("written through the link: %v", entries)
	}
	os.Remove(Dir(path))
	os.MkdirAll(Dir(path), 0o755)
	target := filepath.Join(victim, "secret")
	os.WriteFile(target, data, 0o644)
	os.Symlink(target, filepath.Join(Dir(path), Name(data)))
	if _, err := Read(path, Name(data)); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("readSideFile of a link: %v; want ErrDamaged saying it is a link", err)
	}
}

func TestSideFileWrittenOnce(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "c.yaml")
	data := []byte("the same bytes")
	a, err := Write(root, path, data)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(Dir(path), a))
	b, err := Write(root, path, data)
	if err != nil || a != b {
		t.Fatalf("second write: %q, %v; want %q", b, err, a)
	}
	again, _ := os.Stat(filepath.Join(Dir(path), a))
	if !os.SameFile(info, again) {
		t.Fatal("the second write replaced the file instead of keeping it")
	}
	if entries, _ := os.ReadDir(Dir(path)); len(entries) != 1 {
		t.Fatalf("folder holds %d entries, want 1 (no temporary files left)", len(entries))
	}
}

func TestRemoveRemovesOnlyWhatIsNamed(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "c.yaml")
	keep, _ := Write(root, path, []byte("kept"))
	drop, _ := Write(root, path, []byte("dropped"))
	notes := filepath.Join(Dir(path), "README")
	os.WriteFile(notes, []byte("mine"), 0o644)
	removed, err := Remove(root, path, []string{drop, "README", "../c.yaml"})
	if err != nil || len(removed) != 1 || filepath.Base(removed[0]) != drop {
		t.Fatalf("Remove = %v, %v; want only %s removed", removed, err, drop)
	}
	for _, p := range []string{filepath.Join(Dir(path), keep), notes, path} {
		if _, err := os.Stat(p); err != nil && p != path {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	os.Remove(notes)
	if _, err := Remove(root, path, []string{keep}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Dir(path)); !os.IsNotExist(err) {
		t.Fatalf("the emptied folder is still there: %v", err)
	}
}
