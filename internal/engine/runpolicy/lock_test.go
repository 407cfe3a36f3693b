package runpolicy_test

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/proxy"
)

// holdEnv makes this test binary a second process that holds a folder's
// lock until its stdin closes (TestMain).
const holdEnv = "RUNPOLICY_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		release, err := runpolicy.Lock(dir, nil)
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
		release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func lockFile(t *testing.T, dir string) bool {
	t.Helper()
	locks, _ := filepath.Glob(filepath.Join(dir, ".*lock*"))
	return len(locks) > 0
}

// TestLockForRecordingIsSharedInAProcess: runs that write cassettes take
// the folder's lock, replay and passthrough take none, and the runs of one
// process share it until the last lets go.
func TestLockForRecordingIsSharedInAProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, m := range []proxy.Mode{"", proxy.ModeReplay, proxy.ModePassthrough} {
		release, err := runpolicy.LockForRecording(dir, m, nil)
		if err != nil || lockFile(t, dir) {
			t.Errorf("mode %q: %v, lock file %v; want no lock", m, err, lockFile(t, dir))
		}
		release()
	}
	first, err := runpolicy.LockForRecording(dir, proxy.ModeRecord, nil)
	if err != nil || !lockFile(t, dir) {
		t.Fatalf("record: %v, lock file %v", err, lockFile(t, dir))
	}
	second, err := runpolicy.LockForRecording(filepath.Join(dir, "."), proxy.ModeRecordOnce, nil)
	if err != nil {
		t.Fatalf("a second recorder in the same process: %v, want the lock shared", err)
	}
	first()
	first() // twice is harmless, and does not count twice
	if !lockFile(t, dir) {
		t.Fatal("the lock was given up while a recorder still held it")
	}
	second()
	if lockFile(t, dir) {
		t.Error("the lock file is left after the last recorder let go")
	}
}

// TestLockRefusesAnotherProcess: a folder another process holds is refused
// with ErrLocked naming it; once that process lets go, it can be taken.
func TestLockRefusesAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, _ := holder.StdinPipe()
	r, w, _ := os.Pipe()
	holder.Stdout = w
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line := make([]byte, 5)
	if _, err := r.Read(line); err != nil || string(line) != "held\n" {
		t.Fatalf("the holding process: %q, %v", line, err)
	}
	_, err := runpolicy.LockForRecording(dir, proxy.ModeRecord, nil)
	if !errors.Is(err, reclock.ErrLocked) || !strings.Contains(err.Error(), "PID") {
		t.Errorf("a folder another process holds: %v, want ErrLocked naming it", err)
	}
	stdin.Close()
	if err := holder.Wait(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	release, err := runpolicy.Lock(dir, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatalf("after the holder let go: %v", err)
	}
	release()
	if log.Len() != 0 {
		t.Errorf("a lock released cleanly was reported stale: %s", log.String())
	}
}
