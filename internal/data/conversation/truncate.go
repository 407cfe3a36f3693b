// Forgetting the end of a session: a refresh (proxy's ModeRecordRefresh)
// re-records a session from a step on, and the calls after it are placed
// after what is kept, not after the recordings they replace.

package conversation

// Truncate forgets the invocations of session after invocation keep (ids
// from 1), so the next user turn of the session is placed as the one after
// keep. Out-of-range numbers change nothing.
func (o *Organizer) Truncate(session, keep int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if session < 1 || session > len(o.sessions) {
		return
	}
	s := o.sessions[session-1]
	if keep < 1 || keep >= len(s.invocations) {
		return
	}
	for _, inv := range s.invocations[keep:] {
		if inv.tag != "" && o.tagged[inv.tag] == inv {
			delete(o.tagged, inv.tag)
		}
	}
	s.invocations = s.invocations[:keep]
	o.index.turnChanged(s, false)
}
