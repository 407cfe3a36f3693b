// New episodes that supersede old ones: under record --mode new-episodes a
// model call recorded where an unused recording sits (the same agent,
// history and step, as replay would compare them) replaces it, so the
// cassette holds what the agent does now and a strict replay of it uses
// every recording.

package proxy

import (
	"github.com/adkproxy/adkproxy/internal/data/conversation"
)

// supersede removes the unused recording at x's place, if any, and returns
// it; callers hold the lock. Only tapes that both replay and record
// (new-episodes) supersede: overwrite replaces the whole cassette anyway.
func (t *tape) supersede(call *conversation.Call) *entry {
	if !t.replaying || !t.recording || call == nil {
		return nil
	}
	t.analyze()
	old := t.positionLocked(call)
	if old == nil {
		return nil
	}
	t.remove(old)
	return old
}

// freeSuperseded tells the organizer, before call is placed, that it will
// supersede the unused recording at its slot, so it is placed where that
// recording was rather than after it.
func (t *tape) freeSuperseded(call *conversation.Call) {
	if !t.replaying || !t.recording || call == nil {
		return
	}
	t.mu.Lock()
	t.analyze()
	old := firstUnused(t.positions[call.Slot()], nil)
	t.mu.Unlock()
	if old != nil && old.call != nil && old.x.Place != nil {
		t.org.Supersede(old.call, *old.x.Place)
	}
}
