// The clock replay timing waits on, an interface so tests can see the
// waits without spending them.

package proxy

import (
	"context"
	"time"
)

// Clock waits between replayed events under Config.ReplayTiming; tests
// inject their own to observe the waits without spending them.
type Clock interface {
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
