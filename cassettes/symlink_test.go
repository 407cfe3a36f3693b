package cassettes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFoldersInsideTheCassettesFolderAreNotFollowed: a symlinked folder
// (or cassette file) below the cassettes folder is refused for writing.
func TestFoldersInsideTheCassettesFolderAreNotFollowed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cas")
	outside := filepath.Join(root, "outside")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(outside, 0o755)
	os.Symlink(outside, filepath.Join(dir, "suite"))
	if err := CheckNoSymlinks(dir, filepath.Join(dir, "suite", "case.yaml")); !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), "suite") {
		t.Fatalf("symlinked folder: %v; want ErrSymlink", err)
	}
	os.WriteFile(filepath.Join(outside, "x.yaml"), []byte("version: 2\n"), 0o644)
	os.Symlink(filepath.Join(outside, "x.yaml"), filepath.Join(dir, "x.yaml"))
	if err := CheckNoSymlinks(dir, filepath.Join(dir, "x.yaml")); !errors.Is(err, ErrSymlink) {
		t.Fatalf("symlinked cassette: %v; want ErrSymlink", err)
	}
	// The cassettes folder itself may be a link: the user named it.
	link := filepath.Join(root, "link")
	os.Symlink(dir, link)
	if err := CheckNoSymlinks(link, filepath.Join(link, "new", "case.yaml")); err != nil {
		t.Fatalf("a linked cassettes folder: %v", err)
	}
}

// TestTemporaryFilesAreNeverWrittenThroughASymlink: WriteFileAtomic makes
// its temporary file exclusively, and the rename replaces a link at the
// target instead of writing through it.
func TestTemporaryFilesAreNeverWrittenThroughASymlink(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	path := filepath.Join(root, "c.yaml")
	os.Symlink(victim, path)
	if err := WriteFileAtomic(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Fatalf("victim overwritten: %q", got)
	}
	if info, err := os.Lstat(path); err != nil || info.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("the link was not replaced by the file: %v %v", info, err)
	}
}
