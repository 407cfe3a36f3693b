// A listener that bounds the number of open connections and reports
// failures to accept (such as running out of descriptors) at warn level.

package proxyopt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// refuseTimeout bounds how long a refused connection is kept to deliver
// its 503.
const refuseTimeout = 2 * time.Second

// LimitListener wraps ln so that at most maxConns accepted connections are
// open at once; a connection beyond that gets a 503 Gemini error
// (UNAVAILABLE, Retry-After: 1) and is closed, rather than waiting unseen
// in the backlog. Accept errors are logged at warn level on log, at most
// once a second, then returned (http.Server retries temporary ones).
func LimitListener(ln net.Listener, maxConns int, log *slog.Logger) net.Listener {
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	return &limitListener{Listener: ln, max: int64(maxConns), log: log}
}

type limitListener struct {
	net.Listener
	max      int64
	open     atomic.Int64
	log      *slog.Logger
	lastWarn atomic.Int64 // unix nanoseconds of the last accept warning
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			l.warnAccept(err)
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			go refuse(c, l.max)
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

func (l *limitListener) warnAccept(err error) {
	if errors.Is(err, net.ErrClosed) {
		return
	}
	now := time.Now().UnixNano()
	last := l.lastWarn.Load()
	if now-last < int64(time.Second) || !l.lastWarn.CompareAndSwap(last, now) {
		return
	}
	l.log.Warn("cannot accept connections; new clients wait until descriptors free up (raise the limit with ulimit -n, or lower --max-conns)",
		"error", err.Error(), "open_connections", l.open.Load())
}

// countedConn gives its place back once, when closed.
type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// refuse answers a connection over the limit with a 503 and closes it. The
// request's headers are read first (an answer sent before them would be
// unsolicited, and clients drop it), and what follows is drained, so that
// closing does not reset the connection before the client has read the
// answer.
func refuse(c net.Conn, max int64) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(refuseTimeout))
	br := bufio.NewReader(c)
	if _, err := http.ReadRequest(br); err != nil {
		return
	}
	body := ErrorBody(http.StatusServiceUnavailable, statusUnavailable,
		fmt.Sprintf("too many connections (the limit is %d); retry shortly", max))
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 503 Service Unavailable\r\n")
	for _, h := range [][2]string{
		{"Content-Type", "application/json; charset=UTF-8"},
		{"Content-Length", strconv.Itoa(len(body))},
		{"X-Adkproxy-Error", statusUnavailable},
		{"Retry-After", "1"},
		{"Connection", "close"},
	} {
		head.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	head.WriteString("\r\n")
	if _, err := c.Write(append(head.Bytes(), body...)); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
	io.Copy(io.Discard, io.LimitReader(br, 1<<20)) // until the client closes, or the deadline
}

// statusUnavailable is the google.rpc.Code name of a 503.
const statusUnavailable = "UNAVAILABLE"
