package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBodyGate: large bodies in replay share a budget of MaxBody bytes, so
// a second large request waits while one is handled; small ones never
// wait; a body of unknown length counts as MaxBody.
func TestBodyGate(t *testing.T) {
	const maxBody = 8 << 20
	g := gateFor(ModeReplay, maxBody)
	// failsafe: a request that wrongly waits fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	request := func(size int64) *http.Request {
		r := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(""))
		r.ContentLength = size
		return r
	}
	leaveBig, ok := g.enter(request(6<<20), maxBody)
	if !ok {
		t.Fatal("the first large request could not enter")
	}
	if g.sem.TryAcquire(6 << 20) {
		t.Fatal("room for a second large request while the first holds the budget")
	}
	leaveSmall, ok := g.enter(request(4<<10), maxBody)
	if !ok {
		t.Fatal("a small request waited behind a large one")
	}
	leaveSmall()
	leaveBig()
	leaveUnknown, ok := g.enter(request(-1), maxBody)
	if !ok {
		t.Fatal("a request of unknown length could not enter an empty gate")
	}
	if g.sem.TryAcquire(1) {
		t.Fatal("a body of unknown length did not take the whole budget")
	}
	leaveUnknown()
	if !g.sem.TryAcquire(maxBody) {
		t.Fatal("the budget was not given back")
	}
	if g := gateFor(ModeRecord, maxBody); g.sem != nil {
		t.Fatal("recording is gated: it holds requests for as long as the upstream takes")
	}
}
