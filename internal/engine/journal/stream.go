// Journal records for exchanges with large bodies, written as they are
// encoded rather than built in memory first.

package journal

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/adkproxy/adkproxy/cassettes"
)

// streamedRecord is the body size from which a record is streamed: below
// it, building the record in memory is cheaper than encoding it twice.
const streamedRecord = 1 << 20

// bodyBytes is the size of x's bodies and events.
func bodyBytes(x *cassettes.Exchange) int {
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
func (j *Journal) appendStreamed(x *cassettes.Exchange) error {
	sum := &checksum{h: crc32.NewIEEE()}
	first := func(w io.Writer) error { return writeRecordJSON(io.MultiWriter(sum, w), x) }
	var err error
	if j.scan != nil {
		err = j.scan.ScanStream(first)
	} else {
		err = first(io.Discard)
	}
	if errors.Is(err, cassettes.ErrSecretLeak) {
		j.MarkIncomplete()
		return fmt.Errorf("journal %s: %w", j.file.Path(), err)
	}
	if err != nil {
		return fmt.Errorf("%w: journal: %v", cassettes.ErrWrite, err)
	}
	return j.file.AppendStreamed(sum.n, sum.h.Sum32(), func(w io.Writer) error { return writeRecordJSON(w, x) })
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
func writeRecordJSON(w io.Writer, x *cassettes.Exchange) error {
	prefix := keptLivePrefix(x) // journal.go
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
func writeExchangeJSON(w io.Writer, x *cassettes.Exchange) error {
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
