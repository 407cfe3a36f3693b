// Package reclock is the recording lock: one recorder per cassettes
// folder. The policy of when to take it is the callers'.
package reclock

// One recorder per cassettes folder: two recorders writing one folder
// would each save only their own exchanges over the other's, and share
// journals. A recorder holds an advisory lock, a hidden file in the folder
// holding its PID and start time; a second recorder is refused, naming
// them. Where flock exists the kernel drops the lock when its holder dies,
// so a lock file left by a killed recorder is taken over; elsewhere the
// PID in the file is checked instead. Replay writes nothing and never
// locks.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// lockName is the lock file's name inside the cassettes folder.
const lockName = ".adkproxy.lock"

// ErrLocked: another recorder holds the cassettes folder.
var ErrLocked = errors.New("the cassettes folder is in use by another recorder")

// Holder is the process a lock file names.
type Holder struct {
	PID   int
	Since time.Time
}

// String says who holds the lock, for messages.
func (h *Holder) String() string {
	if h == nil || h.PID == 0 {
		return "a process that has not written its PID yet"
	}
	return fmt.Sprintf("PID %d, since %s", h.PID, h.Since.Format(time.RFC3339))
}

// Lock is a held recording lock.
type Lock struct {
	f       *os.File
	path    string
	madeDir string // the cassettes folder, when locking made it
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Take takes the recording lock of the cassettes folder dir, making the
// folder if needed. When a recorder that is no longer running left its
// lock, it is taken over and returned as stale. A lock held by a running
// recorder gives an error wrapping ErrLocked that names it.
func Take(dir string) (l *Lock, stale *Holder, err error) {
	made := ""
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		made = dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("%w: cassette folder %s: %v", cassettes.ErrWrite, dir, err)
	}
	path := filepath.Join(dir, lockName)
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, cassettes.CheckNoSymlinks(dir, path) // the error naming the link
	}
	f, prev, err := acquire(path)
	var held *heldError
	if errors.As(err, &held) {
		return nil, nil, fmt.Errorf("%w: %s is being recorded into by another adkproxy (%s; lock file %s). Wait for it to finish, or record into another folder",
			ErrLocked, dir, parseHolder(held.content), path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: lock file %s: %v", cassettes.ErrWrite, path, err)
	}
	if len(prev) > 0 {
		stale = parseHolder(prev)
	}
	l = &Lock{f: f, path: path, madeDir: made}
	content := fmt.Sprintf("pid %d\nsince %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(content), 0)
	}
	if err != nil {
		l.Release()
		return nil, nil, fmt.Errorf("%w: lock file %s: %v", cassettes.ErrWrite, path, err)
	}
	f.Sync()
	return l, stale, nil
}

// Release deletes the lock file and drops the lock, and the cassettes
// folder too when locking made it and nothing was recorded into it.
func (l *Lock) Release() {
	os.Remove(l.path) // before unlocking: see acquire
	l.f.Close()
	if l.madeDir != "" {
		os.Remove(l.madeDir) // only succeeds when empty
	}
}

// heldError: the lock is held; content is its file's.
type heldError struct{ content []byte }

func (e *heldError) Error() string { return "held" }

func parseHolder(content []byte) *Holder {
	h := &Holder{}
	for _, line := range strings.Split(string(content), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			h.PID, _ = strconv.Atoi(v)
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, v)
		}
	}
	return h
}
