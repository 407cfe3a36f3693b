package reclock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestLockDirHoldsOffASecondRecorder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cas")
	l, stale, err := Take(dir)
	if err != nil || stale != nil {
		t.Fatalf("%v %v", stale, err)
	}
	_, _, err = Take(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "PID "+strconv.Itoa(os.Getpid())+", since ") {
		t.Fatalf("second lock: %v", err)
	}
	l.Release()
	if _, err := os.Stat(dir); err == nil {
		t.Error("the folder locking made was left behind, empty")
	}
	l, _, err = Take(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l.Release()
}

func TestLockDirTakesOverAStaleLock(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, lockName), []byte("pid 999999\nsince 2026-01-02T03:04:05Z\n"), 0o644)
	l, stale, err := Take(dir)
	if err != nil || stale == nil || stale.PID != 999999 || stale.Since.Year() != 2026 {
		t.Fatalf("%v %v", stale, err)
	}
	defer l.Release()
	data, _ := os.ReadFile(l.Path())
	if !strings.HasPrefix(string(data), "pid "+strconv.Itoa(os.Getpid())+"\n") {
		t.Errorf("lock file %q does not name this process", data)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Error("a folder that existed before is gone")
	}
}

func TestLockDirRefusesALinkedLockFile(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	dir := filepath.Join(root, "cas")
	os.Mkdir(dir, 0o755)
	os.Symlink(victim, filepath.Join(dir, lockName))
	if _, _, err := Take(dir); !errors.Is(err, cassettes.ErrSymlink) {
		t.Fatalf("%v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("victim changed: %q", b)
	}
}
