// Taking a recording back out of a tape: one superseded by a new episode,
// or one whose journal write failed, which its client is told about and
// which must then not be saved either.

package proxy

import "slices"

// remove takes e out of every lookup of the tape; callers hold the lock.
func (t *tape) remove(e *entry) {
	drop := func(list []*entry) []*entry {
		return slices.DeleteFunc(list, func(o *entry) bool { return o == e })
	}
	t.entries = drop(t.entries)
	switch {
	case e.x.IsTool():
		if t.tools[e.fp] = drop(t.tools[e.fp]); len(t.tools[e.fp]) == 0 {
			delete(t.tools, e.fp)
		}
		if h := toolSentHash(&e.x.Request); t.toolsSent[h] == e {
			delete(t.toolsSent, h)
			for _, o := range t.entries { // another recording sent the same bytes
				if o.x.IsTool() && toolSentHash(&o.x.Request) == h {
					t.toolsSent[h] = o
					break
				}
			}
		}
		return
	case e.x.IsLive():
		if t.lives[e.fp] = drop(t.lives[e.fp]); len(t.lives[e.fp]) == 0 {
			delete(t.lives, e.fp)
		}
		return
	}
	if t.queues[e.fp] = drop(t.queues[e.fp]); len(t.queues[e.fp]) == 0 {
		delete(t.queues, e.fp)
	}
	t.unprinted = drop(t.unprinted)
	if h := sentHash(&e.x.Request); t.asSent[h] == e {
		delete(t.asSent, h)
		for _, o := range t.entries { // another recording sent the same bytes
			if !o.x.IsTool() && !o.x.IsLive() && sentHash(&o.x.Request) == h {
				t.asSent[h] = o
				break
			}
		}
	}
	if e.call != nil && t.positions != nil {
		t.positions[e.call.Slot()] = drop(t.positions[e.call.Slot()])
		t.byUser[e.call.UserText] = drop(t.byUser[e.call.UserText])
	}
}

// putBack returns a recording that remove took out (one a new episode
// was to supersede, when the new one could not be kept); callers hold the
// lock.
func (t *tape) putBack(e *entry) {
	t.entries = append(t.entries, e)
	if t.filled {
		t.queues[e.fp] = append(t.queues[e.fp], e)
	}
	if h := sentHash(&e.x.Request); t.asSent[h] == nil {
		t.asSent[h] = e
	}
	if e.call != nil && t.positions != nil {
		t.positions[e.call.Slot()] = append(t.positions[e.call.Slot()], e)
		if e.call.UserTurn >= 0 {
			t.byUser[e.call.UserText] = append(t.byUser[e.call.UserText], e)
		}
	}
}
