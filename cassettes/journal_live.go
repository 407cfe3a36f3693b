// Reading back the journal records of Live connections that were open:
// a connection's frames records put together, superseded by its last
// record (journalfile.LiveRecord).

package cassettes

import (
	"encoding/json"

	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// liveFold puts a journal's Live records together as they are read.
type liveFold struct {
	open map[string]int  // connection -> its index in the exchanges read so far
	done map[string]bool // connections whose last record was read
}

// add folds the Live record payload into xs, returning it. A frames record
// that does not continue its connection (it starts no connection and
// follows none, or leaves a gap) is passed over: what it would add could
// not be placed in order.
func (lf *liveFold) add(xs []*Exchange, payload []byte) ([]*Exchange, bool) {
	var rec journalfile.LiveRecord[Exchange, Frame]
	if json.Unmarshal(payload, &rec) != nil || rec.LiveID == "" {
		return xs, false
	}
	if lf.open == nil {
		lf.open, lf.done = map[string]int{}, map[string]bool{}
	}
	i, open := lf.open[rec.LiveID]
	switch {
	case lf.done[rec.LiveID]:
	case rec.Done:
		if open {
			xs[i] = nil // superseded; dropped by compact
			delete(lf.open, rec.LiveID)
		}
		lf.done[rec.LiveID] = true
		if x := rec.Kept; x != nil && x.Live != nil {
			xs = append(xs, withFrames(x))
		}
	case rec.Start != nil && rec.From == 0:
		x := rec.Start
		x.Live = &Live{Frames: append([]Frame{}, rec.Frames...)}
		if open {
			xs[i] = x
		} else {
			lf.open[rec.LiveID] = len(xs)
			xs = append(xs, x)
		}
	case open && rec.From <= len(xs[i].Live.Frames):
		live := xs[i].Live
		live.Frames = append(live.Frames[:rec.From], rec.Frames...)
	}
	return xs, true
}

// compact drops the connections superseded by their last record.
func (lf *liveFold) compact(xs []*Exchange) []*Exchange {
	if lf.done == nil {
		return xs
	}
	out := xs[:0]
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// withFrames gives a connection read with no frames list an empty one,
// as a connection has when it is recorded.
func withFrames(x *Exchange) *Exchange {
	if x.Live != nil && x.Live.Frames == nil {
		x.Live.Frames = []Frame{}
	}
	return x
}
