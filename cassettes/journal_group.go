// Group commit: exchanges appended to one journal at the same time share
// one write and one fsync, made by a committer that runs while there is
// work.

package cassettes

import (
	"fmt"
	"os"
	"sync"

	"github.com/adkproxy/adkproxy/internal/syncstat"
)

// groupQueue gathers records while the committer is writing or syncing.
type groupQueue struct {
	mu      sync.Mutex
	next    *group // records for the committer's next write, nil if none
	running bool   // a committer goroutine owns the file
}

// group is records written and synced together; done is closed once they
// are on disk (err nil) or failed.
type group struct {
	buf  []byte
	done chan struct{}
	err  error
}

// commit appends record and returns once it is synced. It joins the group
// the committer will write next, and starts the committer if none runs: a
// busy disk therefore gathers every exchange that finishes meanwhile into
// one write + fsync, and no exchange's answer is released before its record
// is synced.
func (j *Journal) commit(record []byte) error {
	q := &j.queue
	q.mu.Lock()
	g := q.next
	if g == nil {
		g = &group{done: make(chan struct{})}
		q.next = g
	}
	g.buf = append(g.buf, record...)
	if !q.running {
		q.running = true
		go j.committer()
	}
	q.mu.Unlock()
	<-g.done
	return g.err
}

// committer writes and syncs groups until none is waiting. It keeps the
// file open: the proxy releases the journals of the cassettes it has not
// written to lately (Release), which bounds descriptors without reopening
// the file for every exchange, and keeps the file of a journal in use at
// hand to mark it incomplete should its save fail.
func (j *Journal) committer() {
	j.mu.Lock()
	defer j.mu.Unlock()
	q := &j.queue
	for {
		q.mu.Lock()
		g := q.next
		q.next = nil
		q.mu.Unlock()
		err := j.writeSynced(func(f *os.File) error {
			_, err := f.Write(g.buf)
			return err
		})
		q.mu.Lock()
		last := q.next == nil
		if last {
			q.running = false
		}
		q.mu.Unlock()
		g.err = err
		close(g.done)
		if last {
			return
		}
	}
}

// writeSynced reopens the file, writes to it with write and syncs it; on
// failure the journal is marked incomplete. j.mu is held.
func (j *Journal) writeSynced(write func(f *os.File) error) error {
	if err := j.reopen(); err != nil {
		j.markIncompleteLocked()
		return err
	}
	err := write(j.f)
	if err == nil {
		err = j.f.Sync()
		syncstat.JournalSynced()
	}
	if err != nil {
		j.markIncompleteLocked()
		return fmt.Errorf("%w: journal %s: %v", ErrWrite, j.path, err)
	}
	return nil
}
