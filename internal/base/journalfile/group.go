// Group commit: exchanges that finish while the disk is busy share one
// write and one fsync per journal, and the journals of every cassette
// being recorded are written and synced in the same batch.

package journalfile

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
	"github.com/adkproxy/adkproxy/internal/base/syncstat"
)

// groupQueue holds a journal's records waiting for the next batch.
type groupQueue struct {
	mu   sync.Mutex
	next *group // records for the next batch, nil if none (then the journal is not listed as dirty)
}

// group is records written and synced together; done is closed once they
// are on disk (err nil) or failed.
type group struct {
	buf  []byte
	done chan struct{}
	err  error
}

// batches is the one committer of the process: while it writes and syncs
// a batch, the records of every journal gather for the next, so a busy
// disk costs one fsync per dirty journal per batch whatever the number of
// cassettes being recorded at once.
var batches batcher

type batcher struct {
	mu      sync.Mutex
	dirty   []*File // journals with a group waiting, each once
	running bool    // a goroutine is running batches
}

// bufs keeps group buffers between batches; one grown past maxPooledBuf
// by a large batch is left to the collector.
var bufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledBuf = 1 << 20

// Append appends payload as one record (length, checksum, payload) and
// returns once it is synced: no exchange's answer is released before its
// record is on disk. The payload is copied; it holds no newline of its
// own at the end.
func (j *File) Append(payload []byte) error {
	sum := crc32.ChecksumIEEE(payload)
	q := &j.queue
	q.mu.Lock()
	g := q.next
	fresh := g == nil
	if fresh {
		g = &group{buf: (*bufs.Get().(*[]byte))[:0], done: make(chan struct{})}
		q.next = g
	}
	g.buf = appendRecord(g.buf, payload, sum)
	q.mu.Unlock()
	if fresh {
		batches.add(j)
	}
	<-g.done
	return g.err
}

// appendRecord appends "<length> <crc32 in 8 hex digits>\n<payload>\n".
func appendRecord(b, payload []byte, sum uint32) []byte {
	b = strconv.AppendInt(b, int64(len(payload)), 10)
	b = append(b, ' ')
	hex := strconv.FormatUint(uint64(sum), 16)
	for range 8 - len(hex) {
		b = append(b, '0')
	}
	b = append(append(b, hex...), '\n')
	b = append(b, payload...)
	return append(b, '\n')
}

// add lists j as dirty and starts the committer if none runs.
func (b *batcher) add(j *File) {
	b.mu.Lock()
	b.dirty = append(b.dirty, j)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.run()
	}
}

// run writes and syncs batches until none is waiting. The dirty journals
// of a batch are synced at the same time (the filesystem can fold their
// syncs into one commit), and the next batch starts once all are done.
func (b *batcher) run() {
	var wg sync.WaitGroup
	for {
		b.mu.Lock()
		js := b.dirty
		b.dirty = nil
		if len(js) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		for _, j := range js[1:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j.flush()
			}()
		}
		js[0].flush()
		wg.Wait()
	}
}

// flush writes and syncs the journal's waiting group and releases its
// waiters. The file stays open: the proxy releases the journals of the
// cassettes it has not written to lately (Release), which bounds
// descriptors without reopening the file for every exchange, and keeps the
// file of a journal in use at hand to mark it incomplete should its save
// fail.
func (j *File) flush() {
	q := &j.queue
	q.mu.Lock()
	g := q.next
	q.next = nil
	q.mu.Unlock()
	j.mu.Lock()
	g.err = j.writeSynced(func(w io.Writer) error {
		_, err := w.Write(g.buf)
		return err
	})
	j.mu.Unlock()
	buf := g.buf[:0]
	g.buf = nil
	close(g.done)
	if cap(buf) <= maxPooledBuf {
		bufs.Put(&buf)
	}
}

// AppendStreamed appends a record of size bytes whose CRC-32 (IEEE) is
// sum, written by write, without holding it: for a payload too large to
// build in memory, whose size and checksum a first pass worked out. It
// returns once the record is synced, as Append does.
func (j *File) AppendStreamed(size int64, sum uint32, write func(w io.Writer) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writeSynced(func(out io.Writer) error {
		w := bufio.NewWriterSize(out, 256<<10)
		fmt.Fprintf(w, "%d %08x\n", size, sum)
		err := write(w)
		if err == nil {
			err = w.WriteByte('\n')
		}
		if err == nil {
			err = w.Flush()
		}
		return err
	})
}

// writeSynced reopens the file, writes records at its end with write,
// prewrites zeros after them if they ran past the last ones, and syncs the
// file's data (one fdatasync on Linux). On failure (a full disk) what was
// written is undone: the records are not in the journal, whose callers
// tell their clients so, and the next records go where these would have,
// so a torn record never hides the ones after it. j.mu is held.
func (j *File) writeSynced(write func(w io.Writer) error) error {
	if err := j.reopen(); err != nil {
		return err
	}
	start := j.end
	w := io.NewOffsetWriter(j.f, start)
	err := write(w)
	n, _ := w.Seek(0, io.SeekCurrent)
	if err == nil {
		j.end += n
		j.prewrite()
		began := time.Now()
		err = safefile.SyncData(j.f)
		syncstat.JournalSynced(time.Since(began))
	}
	if err != nil {
		j.unwrite(start, n)
		return fmt.Errorf("%w: journal %s: %v", safefile.ErrWrite, j.path, err)
	}
	return nil
}

// unwrite takes back the n bytes written at start: zeros over them (space
// already taken, so this works on a full disk) read as the end of the
// journal, and the next record is written at start. j.mu is held.
func (j *File) unwrite(start, n int64) {
	for at := start; at < start+n; {
		m, err := j.f.WriteAt(zeroChunk[:min(int64(len(zeroChunk)), start+n-at)], at)
		if err != nil {
			break // the next record, written at start, still ends the readable part
		}
		at += int64(m)
	}
	j.end = start
}
