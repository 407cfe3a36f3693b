// Journal records for exchanges with large bodies, written as they are
// encoded rather than built in memory first.

package cassettes

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// streamedRecord is the body size from which a record is streamed: below
// it, building the record in memory is cheaper than encoding it twice.
const streamedRecord = 1 << 20

// bodyBytes is the size of x's bodies and events.
func bodyBytes(x *Exchange) int {
	n := len(x.Request.Body) + len(x.Response.Body)
	for _, e := range x.Response.Events {
		n += len(e.Data)
	}
	if x.Live != nil {
		for _, f := range x.Live.Frames {
			n += len(f.Data)
		}
	}
	return n
}

// appendStreamed writes the same record Append builds ("<len> <crc32>\n",
// the exchange's JSON, "\n") without holding it: one encoding pass works
// out the length and checksum and scans for secrets, the second writes.
// Holding it would take its base64 form twice over (the encoder's buffer
// and the record), several times the answer itself.
func (j *Journal) appendStreamed(x *Exchange) error {
	sum := &checksum{h: crc32.NewIEEE()}
	var scan *streamScan
	out := io.Writer(sum)
	if j.scan != nil {
		scan = j.scan.newStreamScan()
		out = io.MultiWriter(sum, scan)
	}
	if err := writeRecordJSON(out, x); err != nil {
		return fmt.Errorf("%w: journal: %v", ErrWrite, err)
	}
	if scan != nil && scan.err != nil {
		j.MarkIncomplete()
		return fmt.Errorf("journal %s: %w", j.path, scan.err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writeSynced(func(out io.Writer) error {
		w := bufio.NewWriterSize(out, 256<<10)
		fmt.Fprintf(w, "%d %08x\n", sum.n, sum.h.Sum32())
		err := writeRecordJSON(w, x)
		if err == nil {
			err = w.WriteByte('\n')
		}
		if err == nil {
			err = w.Flush()
		}
		return err
	})
}

type checksum struct {
	h hash.Hash32
	n int64
}

func (c *checksum) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// writeRecordJSON writes x's record payload: its JSON, wrapped as the
// last record of its connection for a Live connection with an ID.
func writeRecordJSON(w io.Writer, x *Exchange) error {
	prefix := keptLivePrefix(x) // journal_live.go
	if prefix == "" {
		return writeExchangeJSON(w, x)
	}
	if _, err := io.WriteString(w, prefix); err != nil {
		return err
	}
	if err := writeExchangeJSON(w, x); err != nil {
		return err
	}
	_, err := io.WriteString(w, "}")
	return err
}

// writeExchangeJSON writes exactly json.Marshal(x), streaming the bodies
// through a base64 encoder (TestWriteExchangeJSONIsMarshal holds it to
// that).
func writeExchangeJSON(w io.Writer, x *Exchange) error {
	e := &jsonStream{w: w}
	q, r := &x.Request, &x.Response
	e.raw(`{"Request":{"Method":`)
	e.value(q.Method)
	e.raw(`,"Path":`)
	e.value(q.Path)
	e.raw(`,"Query":`)
	e.value(q.Query)
	e.raw(`,"Header":`)
	e.value(q.Header)
	e.raw(`,"Body":`)
	e.bytes(q.Body)
	e.raw(`},"Response":{"Status":`)
	e.value(r.Status)
	e.raw(`,"Header":`)
	e.value(r.Header)
	e.raw(`,"Body":`)
	e.bytes(r.Body)
	e.raw(`,"Events":`)
	if r.Events == nil {
		e.raw("null")
	} else {
		e.raw("[")
		for i, ev := range r.Events {
			if i > 0 {
				e.raw(",")
			}
			e.raw(`{"Data":`)
			e.bytes(ev.Data)
			e.raw(`,"After":`)
			e.value(ev.After)
			e.raw("}")
		}
		e.raw("]")
	}
	e.raw(`,"End":`)
	e.value(r.End)
	e.raw(`,"Latency":`)
	e.value(r.Latency)
	e.raw(`},"Place":`)
	e.value(x.Place)
	if x.Live != nil {
		e.raw(`,"Live":{"Frames":`)
		if x.Live.Frames == nil {
			e.raw("null")
		} else {
			e.raw("[")
			for i, f := range x.Live.Frames {
				if i > 0 {
					e.raw(",")
				}
				e.raw(`{"FromClient":`)
				e.value(f.FromClient)
				e.raw(`,"Kind":`)
				e.value(f.Kind)
				e.raw(`,"Data":`)
				e.bytes(f.Data)
				if f.Code != 0 {
					e.raw(`,"Code":`)
					e.value(f.Code)
				}
				e.raw(`,"At":`)
				e.value(f.At)
				if len(f.Blobs) > 0 {
					e.raw(`,"Blobs":`)
					e.value(f.Blobs)
				}
				e.raw("}")
			}
			e.raw("]")
		}
		e.raw("}")
	}
	e.raw("}")
	return e.err
}

// jsonStream writes JSON pieces, keeping the first error.
type jsonStream struct {
	w   io.Writer
	err error
}

func (e *jsonStream) raw(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}

func (e *jsonStream) value(v any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	_, e.err = e.w.Write(b)
}

// bytes writes b as encoding/json does: base64 in quotes, or null.
func (e *jsonStream) bytes(b []byte) {
	if b == nil {
		e.raw("null")
		return
	}
	e.raw(`"`)
	if e.err == nil {
		enc := base64.NewEncoder(base64.StdEncoding, e.w)
		if _, e.err = enc.Write(b); e.err == nil {
			e.err = enc.Close()
		}
	}
	e.raw(`"`)
}

// streamScan is Redactor.Scan over data arriving in pieces: each piece is
// searched together with the end of the one before, so a secret split
// between two is still found.
type streamScan struct {
	needles []needle
	keep    int
	tail    []byte
	err     error
}

func (r *Redactor) newStreamScan() *streamScan {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s := &streamScan{needles: append([]needle(nil), r.needles...)}
	for _, n := range s.needles {
		s.keep = max(s.keep, len(n.form)+len(Placeholder))
	}
	return s
}

func (s *streamScan) Write(p []byte) (int, error) {
	if s.err != nil || len(s.needles) == 0 {
		return len(p), nil
	}
	window := append(s.tail, p...)
	for _, n := range s.needles {
		if find(window, n.form, 0) >= 0 {
			s.err = fmt.Errorf("%w: %s appears in the exchange; nothing was written", ErrSecretLeak, n.label)
			return len(p), nil
		}
	}
	s.tail = append(s.tail[:0], window[max(0, len(window)-s.keep):]...)
	return len(p), nil
}
