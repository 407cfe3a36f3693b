// Connections taken over from net/http (a CONNECT tunnel, a Live
// WebSocket) leave the http.Server's timeouts behind; here they get an idle
// limit of their own, so silent tunnels and sockets cannot hold every
// connection slot for good.

package proxy

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// idleHijacker hands out, when hijacked, a connection that is closed after
// idle with no byte read or written either way.
type idleHijacker struct {
	http.ResponseWriter
	idle time.Duration
}

// closeWhenIdle wraps w so that the connection a handler takes over from it
// is closed once idle for idle.
func closeWhenIdle(w http.ResponseWriter, idle time.Duration) http.ResponseWriter {
	if _, ok := w.(http.Hijacker); !ok || idle <= 0 {
		return w
	}
	return &idleHijacker{ResponseWriter: w, idle: idle}
}

func (w *idleHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := w.ResponseWriter.(http.Hijacker).Hijack()
	if err != nil {
		return c, brw, err
	}
	ic := newIdleConn(c, w.idle)
	// Bytes the server had buffered are read through the watched conn too.
	return ic, bufio.NewReadWriter(bufio.NewReader(readerThen{brw.Reader, ic}), bufio.NewWriter(ic)), nil
}

// Flush lets streaming handlers flush through the wrapper.
func (w *idleHijacker) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *idleHijacker) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readerThen reads what buf still holds, then from c.
type readerThen struct {
	buf *bufio.Reader
	c   net.Conn
}

func (r readerThen) Read(p []byte) (int, error) {
	if r.buf != nil && r.buf.Buffered() > 0 {
		return r.buf.Read(p)
	}
	return r.c.Read(p)
}

// idleConn closes itself after idle with no activity; any read or write
// that moves a byte counts, in either direction.
type idleConn struct {
	net.Conn
	idle  time.Duration
	last  atomic.Int64 // unix nanoseconds of the last activity
	timer *time.Timer
	once  sync.Once
}

func newIdleConn(c net.Conn, idle time.Duration) *idleConn {
	ic := &idleConn{Conn: c, idle: idle}
	ic.touch()
	ic.timer = time.AfterFunc(idle, ic.check)
	return ic
}

func (c *idleConn) touch() { c.last.Store(time.Now().UnixNano()) }

// check closes the connection if it has been idle long enough, or looks
// again when it could be.
func (c *idleConn) check() {
	quiet := time.Since(time.Unix(0, c.last.Load()))
	if quiet >= c.idle {
		c.Close()
		return
	}
	c.timer.Reset(c.idle - quiet)
}

func (c *idleConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.touch()
	}
	return n, err
}

func (c *idleConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.touch()
	}
	return n, err
}

func (c *idleConn) Close() error {
	c.once.Do(func() { c.timer.Stop() })
	return c.Conn.Close()
}
