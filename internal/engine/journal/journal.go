// Package journal is the recorder's journal: each finished exchange, and
// the frames of a Live connection as they pass, appended durably beside
// the cassette before the client sees the end of its answer, so a killed
// recording loses only what was in flight. The file is
// internal/base/journalfile's; cassettes.Load folds a leftover one back
// in. A record is an exchange's JSON (encoding/json of cassettes.Exchange)
// or a journalfile.LiveRecord of one.
package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// Journal appends exchanges durably. Safe for concurrent use: exchanges
// appended at the same time share one write and one fsync.
type Journal struct {
	file *journalfile.File
	scan *cassettes.Redactor
}

// Open starts a new journal for the cassette at path, replacing any
// leftover one (callers fold a leftover journal in first, see
// cassettes.Load). Records are scanned for secrets with r before they are
// written.
func Open(path, name string, replace bool, r *cassettes.Redactor) (*Journal, error) {
	f, err := journalfile.Open(path, name, replace)
	if err != nil {
		return nil, err
	}
	return &Journal{file: f, scan: r}, nil
}

// liveRecord is a journal record of a Live connection.
type liveRecord = journalfile.LiveRecord[cassettes.Exchange, cassettes.Frame]

// Append writes one exchange and syncs it to disk before returning;
// exchanges appended concurrently share the write and the fsync. On an
// error the exchange is not in the journal (what was written of it is
// undone): a caller that keeps it anyway calls MarkIncomplete.
func (j *Journal) Append(x *cassettes.Exchange) error {
	if bodyBytes(x) >= streamedRecord {
		return j.appendStreamed(x)
	}
	buf := payloads.Get().(*bytes.Buffer)
	defer putPayload(buf)
	buf.Reset()
	prefix := keptLivePrefix(x)
	buf.WriteString(prefix)
	// Encode writes what Marshal would, and a newline, into a buffer
	// reused across exchanges (Append copies the payload).
	if err := json.NewEncoder(buf).Encode(x); err != nil {
		return fmt.Errorf("%w: journal: %v", cassettes.ErrWrite, err)
	}
	buf.Truncate(buf.Len() - 1) // the newline
	if prefix != "" {
		buf.WriteByte('}')
	}
	return j.commit(buf.Bytes())
}

// commit scans payload for secrets and appends it.
func (j *Journal) commit(payload []byte) error {
	if j.scan != nil {
		if err := j.scan.Scan(payload); err != nil {
			j.MarkIncomplete()
			return fmt.Errorf("journal %s: %w", j.file.Path(), err)
		}
	}
	return j.file.Append(payload)
}

// payloads keeps the buffers exchanges are encoded into; one grown past
// maxPooledBuf is left to the collector.
var payloads = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuf = 1 << 20

func putPayload(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuf {
		payloads.Put(b)
	}
}

// AppendLiveFrames journals frames of the open Live connection id, the
// frames after its first from; start is the connection's upgrade, needed
// in its first record of this journal (from 0). The frames are written as
// given: scrub them first (the journal refuses a secret and marks itself
// incomplete). Records appended at once share a write and an fsync, as
// Append's do; it returns once the record is on disk.
func (j *Journal) AppendLiveFrames(id string, start *cassettes.Exchange, from int, frames []cassettes.Frame) error {
	rec := liveRecord{LiveID: id, From: from, Frames: frames}
	if start != nil {
		head := *start
		head.Live = &cassettes.Live{Frames: []cassettes.Frame{}}
		rec.Start = &head
	}
	payload, err := json.Marshal(&rec)
	if err != nil {
		return fmt.Errorf("%w: journal: %v", cassettes.ErrWrite, err)
	}
	return j.commit(payload)
}

// keptLivePrefix opens the last record of the Live connection x, which
// wraps the exchange record; "" for other exchanges, written bare.
func keptLivePrefix(x *cassettes.Exchange) string {
	if x.Live == nil || x.Live.ID == "" {
		return ""
	}
	return journalfile.KeptPrefix(x.Live.ID)
}

// MarkIncomplete records in the journal that it does not hold the whole
// recording (an exchange missed it, or saving the cassette failed), so a
// later Load never lets it replace the saved cassette.
func (j *Journal) MarkIncomplete() { j.file.MarkIncomplete() }

// Release closes the journal's file between appends; the next Append
// opens it again, so a recording into many cassettes does not hold a
// descriptor for each.
func (j *Journal) Release() error { return j.file.Release() }

// Close closes the journal and keeps the file.
func (j *Journal) Close() error { return j.file.Close() }

// Remove closes and deletes the journal, once its cassette is saved.
func (j *Journal) Remove() error { return j.file.Remove() }
