// Waiting for a server that is starting.

package adkapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrStopped is returned by WaitUp when the server's process ended first.
var ErrStopped = errors.New("the server stopped before answering")

// ErrNotServed is returned by WaitUp when the server is up but answers
// list-apps with 404: the API is not where the client looks (the prefix).
var ErrNotServed = errors.New("the server is up, but list-apps is not there")

// waitPoll is how often WaitUp asks.
const waitPoll = 100 * time.Millisecond

// WaitUp asks GET {prefix}/list-apps (every ADK server answers it) until
// it succeeds, ctx ends, stopped (nil: not watched) is closed or the
// server answers 404 (waiting longer would not help), and returns the last
// answer's error with the reason it gave up.
func (c *Client) WaitUp(ctx context.Context, stopped <-chan struct{}) error {
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		_, err := c.ListApps(ctx)
		if err == nil {
			return nil
		}
		if he := (*HTTPError)(nil); errors.As(err, &he) && he.Status == http.StatusNotFound {
			return fmt.Errorf("%w: %v", ErrNotServed, err)
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
