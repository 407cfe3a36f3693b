package cassettes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sideFileCassette saves a cassette whose upload chunk lives in a side file
// and returns its path and the chunk.
func sideFileCassette(t *testing.T, root string) (string, []byte) {
	t.Helper()
	path := filepath.Join(root, "uploads", "one.yaml")
	chunk := bytes.Repeat([]byte{0, 1, 2, 0xff}, SideFileThreshold/4+1)
	name, err := WriteSideFile(root, path, chunk)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cassette{Name: "uploads/one", Exchanges: []*Exchange{{
		Request:  Request{Method: "POST", Path: "/upload/v1beta/files", Query: "upload_id=u1", Body: chunk, BodyFile: name},
		Response: Response{Status: 200, Body: []byte("{}\n")},
	}}}
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	return path, chunk
}

func TestSideFileRoundTripsThroughSaveAndLoad(t *testing.T) {
	root := t.TempDir()
	path, chunk := sideFileCassette(t, root)
	yaml, _ := os.ReadFile(path)
	name := SideFileName(chunk)
	if !bytes.Contains(yaml, []byte("body: "+name)) || !bytes.Contains(yaml, []byte("body_encoding: file")) {
		t.Fatalf("the cassette does not name the side file %s:\n%s", name, yaml)
	}
	if len(yaml) > SideFileThreshold {
		t.Fatalf("the cassette holds the bytes too (%d bytes)", len(yaml))
	}
	onDisk, err := os.ReadFile(filepath.Join(root, "uploads", "one.files", name))
	if err != nil || !bytes.Equal(onDisk, chunk) {
		t.Fatalf("side file: %v, %d bytes; want the chunk's %d", err, len(onDisk), len(chunk))
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Exchanges[0].Request
	if !bytes.Equal(got.Body, chunk) || got.BodyFile != name {
		t.Fatalf("loaded body %d bytes, file %q; want %d bytes from %s", len(got.Body), got.BodyFile, len(chunk), name)
	}
	if files := c.SideFiles(); len(files) != 1 || files[0] != name {
		t.Fatalf("SideFiles = %v", files)
	}
	// Saving again keeps the reference, not the bytes.
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, yaml) {
		t.Fatalf("a load and save changed the cassette:\n%s\n---\n%s", yaml, again)
	}
}

func TestSideFileDamagedOrMissingIsNamed(t *testing.T) {
	root := t.TempDir()
	path, chunk := sideFileCassette(t, root)
	side := filepath.Join(SideFileDir(path), SideFileName(chunk))
	os.WriteFile(side, []byte("edited"), 0o644)
	_, err := Load(path)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), side) || !strings.Contains(err.Error(), "changed after recording") {
		t.Fatalf("Load of a changed side file: %v; want ErrCorrupt naming %s", err, side)
	}
	os.Remove(side)
	_, err = Load(path)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), side) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Load without the side file: %v; want ErrCorrupt naming %s", err, side)
	}
}

func TestSideFileNamesCannotEscape(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"../one.yaml", "sha256-" + strings.Repeat("A", 64), "sha256-../../x", ""} {
		if _, err := readSideFile(filepath.Join(root, "c.yaml"), name); !errors.Is(err, ErrSideFile) || !strings.Contains(err.Error(), "not a side file name") {
			t.Errorf("readSideFile(%q): %v; want ErrSideFile refusing the name", name, err)
		}
	}
}

func TestSideFileIsNeverWrittenOrReadThroughASymlink(t *testing.T) {
	root := t.TempDir()
	victim := t.TempDir()
	path := filepath.Join(root, "c.yaml")
	if err := os.Symlink(victim, SideFileDir(path)); err != nil {
		t.Fatal(err)
	}
	data := []byte("some bytes")
	if _, err := WriteSideFile(root, path, data); !errors.Is(err, ErrSymlink) {
		t.Fatalf("WriteSideFile through a linked folder: %v; want ErrSymlink", err)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Fatalf("written through the link: %v", entries)
	}
	os.Remove(SideFileDir(path))
	os.MkdirAll(SideFileDir(path), 0o755)
	target := filepath.Join(victim, "secret")
	os.WriteFile(target, data, 0o644)
	os.Symlink(target, filepath.Join(SideFileDir(path), SideFileName(data)))
	if _, err := readSideFile(path, SideFileName(data)); !errors.Is(err, ErrSideFile) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("readSideFile of a link: %v; want ErrSideFile saying it is a link", err)
	}
}

func TestSideFileWrittenOnce(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "c.yaml")
	data := []byte("the same bytes")
	a, err := WriteSideFile(root, path, data)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(SideFileDir(path), a))
	b, err := WriteSideFile(root, path, data)
	if err != nil || a != b {
		t.Fatalf("second write: %q, %v; want %q", b, err, a)
	}
	again, _ := os.Stat(filepath.Join(SideFileDir(path), a))
	if !os.SameFile(info, again) {
		t.Fatal("the second write replaced the file instead of keeping it")
	}
	if entries, _ := os.ReadDir(SideFileDir(path)); len(entries) != 1 {
		t.Fatalf("folder holds %d entries, want 1 (no temporary files left)", len(entries))
	}
}

func TestRemoveSideFilesRemovesOnlyWhatIsNamed(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "c.yaml")
	keep, _ := WriteSideFile(root, path, []byte("kept"))
	drop, _ := WriteSideFile(root, path, []byte("dropped"))
	notes := filepath.Join(SideFileDir(path), "README")
	os.WriteFile(notes, []byte("mine"), 0o644)
	removed, err := RemoveSideFiles(root, path, []string{drop, "README", "../c.yaml"})
	if err != nil || len(removed) != 1 || filepath.Base(removed[0]) != drop {
		t.Fatalf("RemoveSideFiles = %v, %v; want only %s removed", removed, err, drop)
	}
	for _, p := range []string{filepath.Join(SideFileDir(path), keep), notes, path} {
		if _, err := os.Stat(p); err != nil && p != path {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	os.Remove(notes)
	if _, err := RemoveSideFiles(root, path, []string{keep}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(SideFileDir(path)); !os.IsNotExist(err) {
		t.Fatalf("the emptied folder is still there: %v", err)
	}
}
