// Large request bodies in replay are taken a budget at a time, so that
// concurrent large requests that miss do not each hold their body and its
// analysis at once.

package proxy

import (
	"net/http"

	"golang.org/x/sync/semaphore"
)

// smallBody is the largest request body that never waits for the gate:
// ordinary model calls, however many at once.
const smallBody = 1 << 20

// bodyGate bounds the bytes of large request bodies a replaying server
// handles at once to MaxBody: a request over smallBody waits for room
// before its body is read, and holds it until answered. A miss on a large
// request costs several times its body (canonical form, analysis,
// differences), so eight concurrent 62 MB misses took 3 GB at once; now
// they are explained one after another.
type bodyGate struct{ sem *semaphore.Weighted }

func newBodyGate(maxBody int64) bodyGate {
	return bodyGate{sem: semaphore.NewWeighted(maxBody)}
}

// enter waits until r's body may be read; a body of unknown length counts
// as the largest allowed. It returns false when the client went away
// first; otherwise call the returned function once the request is
// answered.
func (g bodyGate) enter(r *http.Request, maxBody int64) (leave func(), ok bool) {
	if g.sem == nil || (r.ContentLength >= 0 && r.ContentLength <= smallBody) || r.ContentLength > maxBody {
		return func() {}, true // small, or refused unread
	}
	weight := maxBody
	if r.ContentLength > 0 {
		weight = r.ContentLength
	}
	if err := g.sem.Acquire(r.Context(), weight); err != nil {
		return nil, false
	}
	return func() { g.sem.Release(weight) }, true
}

// gateFor is the gate of a server in mode: replay only. Recording holds a
// request for as long as the upstream takes, and its large requests are
// forwarded, not explained.
func gateFor(mode Mode, maxBody int64) bodyGate {
	if mode != ModeReplay {
		return bodyGate{}
	}
	return newBodyGate(maxBody)
}
