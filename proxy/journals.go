// openJournals: how many journal files a recording keeps open at once.

package proxy

import (
	"slices"
	"sync"

	"github.com/adkproxy/adkproxy/internal/engine/journal"
)

// maxOpenJournals bounds the journal files kept open between exchanges.
const maxOpenJournals = 16

// openJournals keeps the journals of the cassettes written to most recently
// open, at most max of them: descriptors stay bounded however many
// cassettes a run records, while the cassettes in use keep their file (no
// reopen per exchange, and a journal can still be marked incomplete after
// its folder was moved away). A released journal reopens on its next append.
type openJournals struct {
	mu     sync.Mutex
	max    int
	recent []*journal.Journal // least recently used first
}

// used notes that j was just written to, releasing the least recently used
// journals beyond the bound. A nil receiver releases j at once.
func (o *openJournals) used(j *journal.Journal) error {
	if o == nil {
		return j.Release()
	}
	o.mu.Lock()
	o.recent = slices.DeleteFunc(o.recent, func(k *journal.Journal) bool { return k == j })
	o.recent = append(o.recent, j)
	var evict []*journal.Journal
	if n := len(o.recent) - o.max; n > 0 {
		evict = slices.Clone(o.recent[:n])
		o.recent = slices.Delete(o.recent, 0, n)
	}
	o.mu.Unlock()
	var err error
	for _, k := range evict {
		if k != j {
			err = k.Release()
		}
	}
	return err
}

// forget drops j, which its tape has closed or removed.
func (o *openJournals) forget(j *journal.Journal) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.recent = slices.DeleteFunc(o.recent, func(k *journal.Journal) bool { return k == j })
	o.mu.Unlock()
}
