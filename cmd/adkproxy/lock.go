// Taking the cassettes folder's recording lock for a run that writes
// cassettes, by runpolicy's rule (adkproxytest's too).

package main

import (
	"errors"

	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/proxy"
)

// lockForRecording takes the recording lock of cfg's folder when the run
// writes cassettes; a folder another recorder holds exits 75.
func lockForRecording(cfg proxy.Config) (release func(), err error) {
	release, err = runpolicy.LockForRecording(cfg.Dir, cfg.Mode, cfg.Logger)
	if errors.Is(err, reclock.ErrLocked) {
		return nil, withCode(exitTempFail, err)
	}
	return release, err
}
