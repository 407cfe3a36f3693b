// Server-sent events: splitting a stream into events with their exact
// bytes, as soon as each is complete.

package proxy

import (
	"errors"
	"io"
	"sync"
)

// eventReader splits a server-sent-events body into events, each returned
// with its exact bytes, blank-line separator included, as soon as it is
// complete. An event ends at two consecutive line endings, where a line
// ending is CRLF, LF or a lone CR (the SSE rules), so Gemini's "\r\n\r\n"
// and plain "\n\n" streams split alike.
type eventReader struct {
	r       io.Reader
	buf     []byte
	scanned int     // bytes of buf known to hold no event end
	chunk   *[]byte // read buffer from chunks, returned by Close
	err     error
}

// chunks are eventReaders' read buffers: a stream reads into one buffer,
// reused from stream to stream, instead of allocating one per event.
var chunks = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func newEventReader(r io.Reader) *eventReader { return &eventReader{r: r} }

// Close gives the read buffer back; events already returned stay valid.
func (e *eventReader) Close() {
	if e.chunk != nil {
		chunks.Put(e.chunk)
		e.chunk = nil
	}
}

// Next returns the next complete event. At the end of the body it returns
// any unterminated remainder together with the reading error (io.EOF for a
// clean close), and after that (nil, err).
func (e *eventReader) Next() ([]byte, error) {
	if e.chunk == nil {
		e.chunk = chunks.Get().(*[]byte)
	}
	chunk := *e.chunk
	for {
		if end := eventEnd(e.buf, e.scanned, e.err != nil); end > 0 {
			return e.take(end), nil
		}
		if e.err != nil {
			if len(e.buf) > 0 {
				return e.take(len(e.buf)), e.err
			}
			return nil, e.err
		}
		e.scanned = max(0, len(e.buf)-3)
		n, err := e.r.Read(chunk)
		e.buf = append(e.buf, chunk[:n]...)
		if err != nil {
			e.err = err
		}
	}
}

// ready reports whether a complete event is already buffered, which Next
// returns without reading. The end of the body does not count: what came
// before it is flushed before the exchange is kept.
func (e *eventReader) ready() bool { return eventEnd(e.buf, e.scanned, false) > 0 }

func (e *eventReader) take(n int) []byte {
	ev := make([]byte, n)
	copy(ev, e.buf[:n])
	e.buf = e.buf[n:]
	e.scanned = 0
	return ev
}

// eventEnd returns the index just past the first blank-line separator in
// buf, looking from start, or -1. A CR at the very end of buf may be the
// first half of a CRLF, so it counts only once the body has ended.
func eventEnd(buf []byte, start int, atEOF bool) int {
	for i := start; i < len(buf); i++ {
		if buf[i] != '\n' && buf[i] != '\r' {
			continue
		}
		first := lineEnding(buf, i, atEOF)
		if first < 0 {
			return -1
		}
		j := i + first
		if j >= len(buf) {
			return -1
		}
		if buf[j] == '\n' || buf[j] == '\r' {
			second := lineEnding(buf, j, atEOF)
			if second < 0 {
				return -1
			}
			return j + second
		}
		i = j - 1
	}
	return -1
}

// lineEnding is the length of the line ending at buf[i] (1 or 2), or -1
// when a final CR could still be followed by LF.
func lineEnding(buf []byte, i int, atEOF bool) int {
	if buf[i] == '\n' {
		return 1
	}
	if i+1 < len(buf) {
		if buf[i+1] == '\n' {
			return 2
		}
		return 1
	}
	if atEOF {
		return 1
	}
	return -1
}

// splitEvents splits a complete SSE body into events; the last one may lack
// a separator. Joining the result gives back body exactly.
func splitEvents(body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		end := eventEnd(body, 0, true)
		if end < 0 {
			end = len(body)
		}
		out = append(out, body[:end:end])
		body = body[end:]
	}
	return out
}

// isCleanEnd tells a normal end of a body from a broken connection.
func isCleanEnd(err error) bool { return err == nil || errors.Is(err, io.EOF) }
