// Waiting for a server that is starting.

package api

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrStopped is returned by WaitUp when the server's process ended first.
var ErrStopped = errors.New("the server stopped before answering")

// waitPoll is how often WaitUp asks.
const waitPoll = 100 * time.Millisecond

// WaitUp asks GET {prefix}/list-apps (every ADK server answers it) until
// it succeeds, ctx ends, or stopped (nil: not watched) is closed, and
// returns the last answer's error with the reason it gave up.
func (c *Client) WaitUp(ctx context.Context, stopped <-chan struct{}) error {
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		_, err := c.ListApps(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-stopped:
			return fmt.Errorf("%w (%v)", ErrStopped, err)
		case <-ctx.Done():
			return fmt.Errorf("%w (%v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}
