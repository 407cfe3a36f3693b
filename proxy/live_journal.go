// Live connections journalled as they pass: a goroutine per recorded
// connection writes the frames kept since its last write to the cassette's
// journal (shared writes and fsyncs, as exchanges have), and the end of
// each turn waits for it, so a crash loses no turn the client had seen end.

package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/engine/journal"
)

// liveJournal writes one recorded connection to its tape's journal while
// it is open. The relay goroutines never write: they wake the writer, and
// wait for it only before passing on a frame that ends a turn (endsTurn).
type liveJournal struct {
	s   *Server
	t   *tape
	rec *liveRecorder

	wake chan struct{} // one pending wake-up is enough
	stop chan struct{}
	done chan struct{} // closed when the writer has returned

	mu     sync.Mutex
	synced *sync.Cond // signalled when onDisk grows or off is set
	onDisk int        // frames on disk, in the journal written
	off    bool       // no longer written (ended, or a write failed): nobody waits

	journal *journal.Journal // the journal the connection's records are in
}

// journalLive starts journalling rec's connection as it passes, when the
// tape keeps what it records and no BeforeSave hook has to see the whole
// connection before any of it is written; otherwise it returns nil, and
// the connection is journalled when it ends.
func (s *Server) journalLive(t *tape, rec *liveRecorder) *liveJournal {
	if !t.persist || s.cfg.BeforeSave != nil {
		return nil
	}
	var id [8]byte
	rand.Read(id[:])
	rec.x.Live.ID = hex.EncodeToString(id[:])
	l := &liveJournal{s: s, t: t, rec: rec, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	l.synced = sync.NewCond(&l.mu)
	t.mu.Lock()
	if t.liveOpen == nil {
		t.liveOpen = map[*liveJournal]struct{}{}
	}
	t.liveOpen[l] = struct{}{}
	t.mu.Unlock()
	go l.run()
	return l
}

// kept wakes the writer: a frame was kept. It never blocks.
func (l *liveJournal) kept() {
	if l == nil {
		return
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// waitFor returns once the connection's first n frames are on disk, or
// once nothing more will be written.
func (l *liveJournal) waitFor(n int) {
	if l == nil {
		return
	}
	l.kept()
	l.mu.Lock()
	for l.onDisk < n && !l.off {
		l.synced.Wait()
	}
	l.mu.Unlock()
}

// end stops the writer before the whole connection is kept (whose record
// supersedes the ones written here).
func (l *liveJournal) end() {
	if l == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.t.mu.Lock()
	delete(l.t.liveOpen, l)
	l.t.mu.Unlock()
}

// rejournalLive has the tape's open connections written again from their
// start: the journal that held them was removed (the cassette was saved
// while they were open). Callers do not hold t.mu.
func (t *tape) rejournalLive() {
	t.mu.Lock()
	open := slices.Collect(maps.Keys(t.liveOpen))
	t.mu.Unlock()
	for _, l := range open {
		l.kept()
	}
}

func (l *liveJournal) run() {
	defer close(l.done)
	defer l.turnOff()
	for {
		select {
		case <-l.stop:
			return
		case <-l.wake:
		}
		if !l.write() {
			return
		}
	}
}

// turnOff releases every waiter for good.
func (l *liveJournal) turnOff() {
	l.mu.Lock()
	l.off = true
	l.synced.Broadcast()
	l.mu.Unlock()
}

// write appends the frames kept since the last write, scrubbed and with
// their media in side files, as one record; into a journal that is not
// the one written before (the cassette was saved meanwhile) the connection
// is written from its start. A failed write stops journalling: the
// connection is still kept whole when it ends, as before.
func (l *liveJournal) write() bool {
	for attempt := 0; ; attempt++ {
		l.t.mu.Lock()
		j, err := l.t.journalLocked()
		l.t.mu.Unlock()
		if err != nil {
			l.failed(err)
			return false
		}
		from := l.onDisk
		var start *cassettes.Exchange
		if j != l.journal {
			from, start = 0, l.head()
		}
		l.rec.mu.Lock()
		frames := slices.Clone(l.rec.x.Live.Frames[from:])
		l.rec.mu.Unlock()
		if len(frames) == 0 && start == nil {
			return true
		}
		for i := range frames {
			frames[i].Data = l.s.cfg.Redactor.Bytes(frames[i].Data)
		}
		if err := cassettes.StoreLiveBlobs(l.s.cfg.Dir, l.t.path, &cassettes.Exchange{Live: &cassettes.Live{Frames: frames}}); err != nil {
			for i := range frames {
				frames[i].Blobs = nil // the frames keep every byte
			}
		}
		err = j.AppendLiveFrames(l.rec.x.Live.ID, start, from, frames)
		if err == nil {
			err = l.t.journals.used(j)
		}
		if err != nil {
			l.t.mu.Lock()
			moved := l.t.journal != j
			l.t.mu.Unlock()
			if moved && attempt == 0 {
				continue // saved and removed under us: write to the new one
			}
			l.failed(err)
			return false
		}
		l.mu.Lock()
		l.journal = j
		l.onDisk = from + len(frames)
		l.synced.Broadcast()
		l.mu.Unlock()
		return true
	}
}

// head is the connection's upgrade, scrubbed, for its first record.
func (l *liveJournal) head() *cassettes.Exchange {
	x := &cassettes.Exchange{Request: l.rec.x.Request, Response: l.rec.x.Response}
	l.s.cfg.Redactor.Exchange(x) // its headers are new maps: the connection's stay as they are
	return x
}

func (l *liveJournal) failed(err error) {
	l.s.log.Error("Live connection no longer journalled as it passes: the journal could not be written; it is kept when it ends", "cassette", l.t.name, "error", err.Error())
}

// endsTurn reports whether a server message ends what a client waits
// for: setupComplete, a toolCall, or serverContent with turnComplete.
// Only a message that names one of them is parsed.
func endsTurn(data []byte) bool {
	if !bytes.Contains(data, []byte("setupComplete")) && !bytes.Contains(data, []byte("toolCall")) && !bytes.Contains(data, []byte("turnComplete")) {
		return false
	}
	var msg struct {
		SetupComplete json.RawMessage `json:"setupComplete"`
		ToolCall      json.RawMessage `json:"toolCall"`
		ServerContent struct {
			TurnComplete bool `json:"turnComplete"`
		} `json:"serverContent"`
	}
	if json.Unmarshal(data, &msg) != nil {
		return false
	}
	return msg.SetupComplete != nil || msg.ToolCall != nil || msg.ServerContent.TurnComplete
}
