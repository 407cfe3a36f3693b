// Taking the cassettes folder's recording lock for a run that writes cassettes.

package main

import (
	"errors"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/proxy"
)

// lockForRecording takes the cassettes folder's recording lock when the
// run writes cassettes (see cassettes.LockDir); replay and passthrough
// write none and do not lock. A folder another recorder holds exits 75.
func lockForRecording(cfg proxy.Config) (release func(), err error) {
	if cfg.Mode == proxy.ModeReplay || cfg.Mode == proxy.ModePassthrough {
		return func() {}, nil
	}
	l, stale, err := cassettes.LockDir(cfg.Dir)
	if errors.Is(err, cassettes.ErrLocked) {
		return nil, withCode(exitTempFail, err)
	}
	if err != nil {
		return nil, err
	}
	if stale != nil {
		cfg.Logger.Warn("took over the recording lock of a recorder that is no longer running (killed?); its cassettes are recovered from their journals",
			"holder", stale.String(), "lock", l.Path())
	}
	return l.Release, nil
}
