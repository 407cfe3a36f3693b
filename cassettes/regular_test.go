//go:build unix

package cassettes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// TestOnlyRegularFilesAreRead: a cassette that is a link to a device
// (/dev/zero: read forever), a FIFO (blocks forever) or a file over the
// size bound is refused at once with an error naming the file, by Load and
// LoadDir alike; so is a journal beside a cassette that is a FIFO.
func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	huge := filepath.Join(dir, "huge.yaml")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, maxFileSize+1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(ok, []byte("version: 2\ninteractions: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(journalfile.Path(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	within := func(what string, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: still reading after 20s", what)
			return nil
		}
	}
	for _, c := range []struct {
		path, says string
	}{{zero, "device"}, {fifo, "FIFO"}, {huge, "split the cassette"}, {ok, "FIFO"}} {
		err := within(c.path, func() error { _, err := Load(c.path); return err })
		if err == nil || !strings.Contains(err.Error(), filepath.Base(c.path)) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Load(%s): %v, want an error naming the file and saying %q", filepath.Base(c.path), err, c.says)
		}
	}
	if err := within("LoadDir", func() error { _, err := LoadDir(dir); return err }); err == nil || !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotRegular) {
		t.Errorf("LoadDir: %v, want the first bad file named", err)
	}
}
