package proxy

import (
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// tape is one cassette in memory with its own lock, so requests for
// different cassettes never wait on each other.
type tape struct {
	name string
	path string

	mu        sync.Mutex
	exchanges []*cassettes.Exchange
	dirty     bool
	// Replay: the recordings of each fingerprint in recorded order, served
	// first-in first-out so identical requests get their answers in turn.
	queues map[matcher.Fingerprint]*queue
}

type queue struct {
	items []*cassettes.Exchange
	next  int
}

func newTape(name, path string, exchanges []*cassettes.Exchange) *tape {
	t := &tape{name: name, path: path, exchanges: exchanges, queues: map[matcher.Fingerprint]*queue{}}
	for _, x := range exchanges {
		fp := matcher.FingerprintOf(&x.Request)
		q := t.queues[fp]
		if q == nil {
			q = &queue{}
			t.queues[fp] = q
		}
		q.items = append(q.items, x)
	}
	return t
}

// take returns the next unused recording for fp. Once all are used it
// returns the last one when repeats are allowed; exhausted reports that
// recordings existed but were used up.
func (t *tape) take(fp matcher.Fingerprint, allowRepeats bool) (x *cassettes.Exchange, exhausted int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.queues[fp]
	if q == nil {
		return nil, 0
	}
	if q.next < len(q.items) {
		q.next++
		return q.items[q.next-1], 0
	}
	if allowRepeats {
		return q.items[len(q.items)-1], 0
	}
	return nil, len(q.items)
}

func (t *tape) append(x *cassettes.Exchange) {
	t.mu.Lock()
	t.exchanges = append(t.exchanges, x)
	t.dirty = true
	t.mu.Unlock()
}

// requests lists the recorded requests, for explaining a miss.
func (t *tape) requests() []*cassettes.Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*cassettes.Request, len(t.exchanges))
	for i, x := range t.exchanges {
		out[i] = &x.Request
	}
	return out
}

// snapshot returns the cassette to save, or nil when nothing changed.
func (t *tape) snapshot() *cassettes.Cassette {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dirty {
		return nil
	}
	t.dirty = false
	return &cassettes.Cassette{Name: t.name, Exchanges: append([]*cassettes.Exchange(nil), t.exchanges...)}
}
