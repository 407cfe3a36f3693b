//go:build !unix

package reclock

import (
	"errors"
	"io/fs"
	"os"
)

// acquire creates the lock file at path exclusively. Without flock, a
// file already there is held while the PID in it runs; otherwise it is
// stale, and is removed and created again.
func acquire(path string) (f *os.File, prev []byte, err error) {
	for range 3 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, prev, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, nil, err
		}
		content, err := os.ReadFile(path)
		if err != nil {
			continue // released meanwhile
		}
		if h := parseHolder(content); h.PID == 0 || processRunning(h.PID) {
			return nil, nil, &heldError{content}
		}
		prev = content
		os.Remove(path)
	}
	return nil, nil, errors.New("the lock file keeps changing; another recorder is starting")
}

// processRunning reports whether a process with that PID exists (on
// Windows, FindProcess opens it and fails when there is none).
func processRunning(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
