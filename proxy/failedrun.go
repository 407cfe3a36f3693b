// A record run whose command failed: the cassettes it would have replaced
// stay as they were, and what it recorded goes beside them, so a crash on
// the first call cannot turn a good cassette into one error exchange.

package proxy

import (
	"errors"
	"io/fs"
	"os"
)

// SetAside is a cassette a failed run left as it was.
type SetAside struct {
	Cassette  string // its name
	Kept      string // its file, unchanged
	File      string // the set-aside file holding this run's recording (internal/base/setaside)
	Exchanges int    // how many exchanges that file holds
}

// CloseFailed is Close for a run whose command failed: a cassette that
// this run would replace (record --mode overwrite over a file on disk) is
// left unchanged and the run's recording of it is written to the file
// internal/base/setaside names, which replay ignores. Cassettes that did not
// exist, and those extended rather than replaced, are written as Close
// writes them. It returns the cassettes set aside.
func (s *Server) CloseFailed() ([]SetAside, error) {
	return s.close(true)
}

// replacesFile reports whether saving the tape would replace a cassette
// file with this run's recording rather than create or extend it.
func (t *tape) replacesFile() bool {
	t.mu.Lock()
	replace := t.replace
	t.mu.Unlock()
	if !replace {
		return false
	}
	_, err := os.Lstat(t.path)
	return !errors.Is(err, fs.ErrNotExist)
}
