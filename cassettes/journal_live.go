// Journal records of Live connections still open: their frames are
// journalled as they pass, and the connection's last record (the whole
// connection as kept) supersedes them; reading them back after a crash.

package cassettes

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// liveRecord is a journal record of a Live connection, told from an
// exchange record by its first key. A connection's records share its
// LiveID. Frames records continue it: the first one in a journal carries
// Start (the upgrade's request and answer) and From 0, each later one the
// frames after From. The last record has Done and Kept, the whole
// connection as it was kept (scrubbed, its media in side files), which
// supersedes the frames records: the journal holds each frame at most
// twice, and loading takes the last word.
type liveRecord struct {
	LiveID string
	Start  *Exchange `json:",omitempty"`
	From   int       `json:",omitempty"`
	Frames []Frame   `json:",omitempty"`
	Done   bool      `json:",omitempty"`
	Kept   *Exchange `json:",omitempty"`
}

// liveRecordHead starts every liveRecord's JSON; an exchange's starts
// with its request.
var liveRecordHead = []byte(`{"LiveID":`)

// AppendLiveFrames journals frames of the open Live connection id, the
// frames after its first from; start is the connection's upgrade, needed
// in its first record of this journal (from 0). The frames are written as
// given: scrub them first (the journal refuses a secret and marks itself
// incomplete). Records appended at once share a write and an fsync, as
// Append's do; it returns once the record is on disk.
func (j *Journal) AppendLiveFrames(id string, start *Exchange, from int, frames []Frame) error {
	rec := liveRecord{LiveID: id, From: from, Frames: frames}
	if start != nil {
		head := *start
		head.Live = &Live{Frames: []Frame{}}
		rec.Start = &head
	}
	payload, err := json.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("%w: journal: %v", ErrWrite, err)
	}
	if j.scan != nil {
		if err := j.scan.Scan(payload); err != nil {
			j.MarkIncomplete()
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
	}
	return j.commit(payload)
}

// keptLivePrefix opens the last record of the Live connection x, which
// wraps the exchange record; "" for other exchanges, written bare.
func keptLivePrefix(x *Exchange) string {
	if x.Live == nil || x.Live.ID == "" {
		return ""
	}
	id, _ := json.Marshal(x.Live.ID)
	return `{"LiveID":` + string(id) + `,"Done":true,"Kept":`
}

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
	var rec liveRecord
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

// isLiveRecord tells a Live record from an exchange record.
func isLiveRecord(payload []byte) bool { return bytes.HasPrefix(payload, liveRecordHead) }
