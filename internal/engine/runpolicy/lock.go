// The recording lock: which runs take the cassettes folder's lock, and
// how the runs of one process share it.

package runpolicy

import (
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/proxy"
)

// LockForRecording takes the recording lock of dir when a run in mode
// writes cassettes there: two recorders in one folder would overwrite each
// other's recordings. Replay and passthrough write none and take no lock.
// See Lock for what it returns.
func LockForRecording(dir string, mode proxy.Mode, log *slog.Logger) (release func(), err error) {
	if mode == "" || mode == proxy.ModeReplay || mode == proxy.ModePassthrough { // "": proxy.Config's zero value, replay
		return func() {}, nil
	}
	return Lock(dir, log)
}

// held is the folder locks this process holds, shared by its runs.
var held = struct {
	sync.Mutex
	locks map[string]*sharedLock
}{locks: map[string]*sharedLock{}}

type sharedLock struct {
	lock  *reclock.Lock
	users int
}

// Lock takes the recording lock of dir for a run that writes cassettes
// (prune takes it too). The runs of one process share a folder's lock (a
// Go test suite's parallel tests record into one folder): the first takes
// it and the last release gives it up; release may be called more than
// once. A folder another process holds gives an error wrapping
// reclock.ErrLocked that names it. A lock left by a recorder no longer
// running is taken over, with a warning on log (if not nil): its cassettes
// are recovered from their journals.
func Lock(dir string, log *slog.Logger) (release func(), err error) {
	key, err := filepath.Abs(dir)
	if err != nil {
		key = filepath.Clean(dir)
	}
	held.Lock()
	defer held.Unlock()
	s := held.locks[key]
	if s == nil {
		l, stale, err := reclock.Take(dir)
		if err != nil {
			return nil, err
		}
		if stale != nil && log != nil {
			log.Warn("took over the recording lock of a recorder that is no longer running (killed?); its cassettes are recovered from their journals",
				"holder", stale.String(), "lock", l.Path())
		}
		s = &sharedLock{lock: l}
		held.locks[key] = s
	}
	s.users++
	var once sync.Once
	return func() { once.Do(func() { unshare(key, s) }) }, nil
}

func unshare(key string, s *sharedLock) {
	held.Lock()
	defer held.Unlock()
	if s.users--; s.users == 0 {
		delete(held.locks, key)
		s.lock.Release()
	}
}
