// Refreshing a cassette (ModeRecordRefresh): a session is replayed while
// its requests match and re-recorded from the first that does not, every
// later request of it forwarded too, and its recordings left unused
// dropped when the cassette is written.

package proxy

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// refreshFrom marks the session of a forwarded model call (and of the
// recording it superseded) as re-recorded from now on; callers hold the
// lock.
func (t *tape) refreshFrom(x *cassettes.Exchange, superseded *entry) {
	if !t.refresh || x.IsTool() || x.IsLive() {
		return
	}
	if t.refreshed == nil {
		t.refreshed = map[int]bool{}
	}
	if p := x.Place; p != nil && !t.refreshed[p.Session] {
		t.refreshed[p.Session] = true
		t.org.Truncate(p.Session, p.Invocation) // later turns follow this one, not the recordings it replaces
	}
	if superseded != nil && superseded.x.Place != nil {
		t.refreshed[superseded.x.Place.Session] = true
	}
}

// refreshing says whether e, just taken for a request, belongs to a
// session being re-recorded; it is then given back, unused, and the
// request forwarded: what follows a changed step is recorded anew even
// where it matches.
func (t *tape) refreshing(e *entry) bool {
	if !t.refresh || e.x.Place == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.refreshed[e.x.Place.Session] {
		return false
	}
	e.used = false
	return true
}

// stale: a recording of a re-recorded session that no request used (the
// agent no longer makes that call), left out of the cassette written;
// callers hold the lock.
func (t *tape) stale(e *entry) bool {
	return t.refresh && !e.used && e.x.Place != nil && t.refreshed[e.x.Place.Session]
}

// rerecordedLines say, when a run both replayed and recorded model calls
// (refresh, new episodes), which steps of which session it recorded: one
// line a session, "re-recorded default session 1: invocation 1 step 1,
// invocation 2 steps 0-1".
func rerecordedLines(r Report) []SummaryLine {
	if r.Counts[matcher.OutcomeMatched] == 0 || r.Counts[matcher.OutcomeRecorded] == 0 {
		return nil
	}
	type key struct {
		cassette string
		session  int
	}
	var order []key
	steps := map[key][]string{}
	for _, o := range r.Outcomes {
		if o.Outcome != matcher.OutcomeRecorded || o.Session == 0 || o.Step == nil || o.Host != "" {
			continue
		}
		k := key{o.Cassette, o.Session}
		if steps[k] == nil {
			order = append(order, k)
		}
		steps[k] = append(steps[k], fmt.Sprintf("invocation %d step %d", o.Invocation, *o.Step))
	}
	var lines []SummaryLine
	for _, k := range order {
		lines = append(lines, SummaryLine{Text: fmt.Sprintf("  re-recorded %s session %d: %s", cassettes.ShortName(k.cassette), k.session, strings.Join(steps[k], ", "))})
	}
	return lines
}
