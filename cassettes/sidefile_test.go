// Side files through Save and Load: named in the YAML, checked when read.

package cassettes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/sidefile"
)

// sideFileCassette saves a cassette whose upload chunk lives in a side file
// and returns its path and the chunk.
func sideFileCassette(t *testing.T, root string) (string, []byte) {
	t.Helper()
	path := filepath.Join(root, "uploads", "one.yaml")
	chunk := bytes.Repeat([]byte{0, 1, 2, 0xff}, sidefile.Threshold/4+1)
	name, err := sidefile.Write(root, path, chunk)
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
	name := sidefile.Name(chunk)
	if !bytes.Contains(yaml, []byte("body: "+name)) || !bytes.Contains(yaml, []byte("body_encoding: file")) {
		t.Fatalf("the cassette does not name the side file %s:\n%s", name, yaml)
	}
	if len(yaml) > sidefile.Threshold {
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
	side := filepath.Join(sidefile.Dir(path), sidefile.Name(chunk))
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

// TestSideFileFolderFollowsTheExtension: sidefile names the folder from the
// cassette's path without importing this package; the two agree.
func TestSideFileFolderFollowsTheExtension(t *testing.T) {
	if got, want := sidefile.Dir(filepath.Join("a", "b"+Extension)), filepath.Join("a", "b.files"); got != want {
		t.Fatalf("sidefile.Dir = %s, want %s", got, want)
	}
}
