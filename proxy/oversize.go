// Answers larger than MaxBody: read within the limit or passed on whole,
// unrecorded, and remembered so the run fails at exit.

package proxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// errOverLimit: an upstream body went past MaxBody.
var errOverLimit = errors.New("answer larger than the body limit")

// capReader reads at most left bytes and then fails with errOverLimit,
// never with io.EOF, so a body one byte over the limit is told apart from
// one exactly at it (callers allow limit+1 bytes).
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errOverLimit
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// readAnswer reads a whole non-streaming answer when it fits in limit
// (decoded size: the transport has already undone gzip). A declared length
// is read into one buffer of that size; an undeclared one in chunks joined
// once, so the peak is twice the body rather than io.ReadAll's growth. When
// the answer is larger, over is set and head holds what was read so far
// (nothing when the declared length already said so). With recycled, a
// declared length is read into a recycled buffer, which the caller gives
// back (releaseBody) once nothing refers to the answer.
func readAnswer(body io.Reader, declared, limit int64, recycled bool) (data []byte, over bool, err error) {
	if declared > limit {
		return nil, true, nil
	}
	if declared >= 0 {
		var p *[]byte
		if recycled {
			p, _ = requestBodies.Get().(*[]byte)
		}
		if p != nil && int64(cap(*p)) >= declared {
			data = (*p)[:declared]
		} else {
			data = make([]byte, declared)
		}
		n, err := io.ReadFull(body, data)
		return data[:n], false, err
	}
	r := &capReader{r: body, left: limit + 1}
	var chunks [][]byte
	total, size := 0, 32<<10
	for {
		chunk := make([]byte, size)
		n, rerr := io.ReadFull(r, chunk)
		chunks = append(chunks, chunk[:n])
		total += n
		size = min(size*2, 4<<20)
		if rerr == nil {
			continue
		}
		if errors.Is(rerr, errOverLimit) {
			over = true
		} else if rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			err = rerr
		}
		break
	}
	if len(chunks) == 1 {
		return chunks[0], over, err
	}
	data = make([]byte, 0, total)
	for _, c := range chunks {
		data = append(data, c...)
	}
	return data, over, err
}

// passOn sends the rest of an oversized answer to the client as it
// arrives, after head (the bytes already read), flushing each read so a
// stream keeps its pace. It returns the bytes sent in all, and the error
// that stopped it: the upstream's (nil at a clean end) or the client's.
func passOn(w http.ResponseWriter, head []byte, body io.Reader) (int64, error) {
	flusher, _ := w.(http.Flusher)
	sent := int64(0)
	if len(head) > 0 {
		n, err := w.Write(head)
		sent += int64(n)
		if err != nil {
			return sent, err
		}
	}
	buf := make([]byte, 32<<10)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			sent += int64(m)
			if werr != nil {
				return sent, werr
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if rerr == io.EOF {
			return sent, nil
		}
		if rerr != nil {
			return sent, rerr
		}
	}
}

// oversizedLog remembers the answers passed on without being recorded.
type oversizedLog struct {
	mu    sync.Mutex
	lines []string
	count int
}

// maxOversizedListed keeps the exit message to one screen.
const maxOversizedListed = 5

// add notes one oversized answer and returns its description.
func (l *oversizedLog) add(cassette string, req *cassettes.Request, size, limit int64, complete bool) string {
	at := "in all"
	if !complete {
		at = "before the exchange ended"
	}
	line := fmt.Sprintf("cassette %q, %s %s: the answer was %d bytes %s, over the body limit of %d bytes",
		cassette, req.Method, req.Path, size, at, limit)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	if len(l.lines) < maxOversizedListed {
		l.lines = append(l.lines, line)
	}
	return line
}

// failure is the error the run ends with when answers were not recorded.
func (l *oversizedLog) failure(hint string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == 0 {
		return nil
	}
	more := ""
	if n := l.count - len(l.lines); n > 0 {
		more = fmt.Sprintf("\n  … and %d more", n)
	}
	return fmt.Errorf("%w: %d answer(s) were passed to the client whole but not recorded:\n  %s%s%s",
		ErrRunFailed, l.count, strings.Join(l.lines, "\n  "), more, hinted("", "\n  ", hint))
}

// forwardOversized passes an answer over MaxBody to the client whole and
// records nothing: the agent sees the same answer as without the proxy,
// and the run fails at exit, since the cassette lacks it. head is what was
// read before the size was known.
func (s *Server) forwardOversized(w http.ResponseWriter, resp *http.Response, head []byte, t *tape, stored *cassettes.Request) {
	if resp.ContentLength >= 0 {
		w.Header().Set("Content-Length", fmt.Sprint(resp.ContentLength))
	}
	w.WriteHeader(resp.StatusCode)
	sent, err := passOn(w, head, resp.Body)
	s.noteOversized(t, stored, sent, err)
	if err != nil {
		panic(http.ErrAbortHandler) // cut, as the upstream or the client cut it
	}
}

// streamOversized passes on the rest of a stream that went over MaxBody
// after sent bytes of events, recording none of it: the events already
// kept are dropped, so an endless stream holds no memory.
func (s *Server) streamOversized(w http.ResponseWriter, resp *http.Response, x *cassettes.Exchange, t *tape, stored *cassettes.Request) {
	sent := int64(0)
	for _, ev := range x.Response.Events {
		sent += int64(len(ev.Data))
	}
	x.Response.Events = nil
	more, err := passOn(w, nil, resp.Body)
	s.noteOversized(t, stored, sent+more, err)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
}

// noteOversized reports an answer that was passed on and not recorded.
// Only a cassette that keeps what it forwards is missing it: passthrough
// records nothing anyway, so there the run does not fail.
func (s *Server) noteOversized(t *tape, stored *cassettes.Request, sent int64, err error) {
	if !t.persist {
		s.report.add(outcomeFor(matcher.OutcomeForwarded, t.name, stored, nil))
		return
	}
	msg := s.oversized.add(t.name, stored, sent, s.cfg.MaxBody, err == nil)
	o := outcomeFor(matcher.OutcomeForwarded, t.name, stored, nil)
	o.Message = hinted(msg+"; passed on, not recorded", "; ", s.cfg.Hints.TooLarge)
	s.report.add(o)
	s.log.Error("answer over the body limit passed on but not recorded; the run will fail", "cassette", t.name,
		"method", stored.Method, "path", stored.Path, "bytes", sent, "limit", s.cfg.MaxBody)
}
