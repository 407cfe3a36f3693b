// TLS on the plain listener: a connection that opens with a TLS handshake
// is served over TLS with a leaf from the local CA, any other as plain
// HTTP, on the same port, so clients that insist on https: and wss:
// (Python's and Go's Live clients) reach adkproxy as https://127.0.0.1:PORT.

package proxyopt

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// tlsRecordHandshake is the first byte of every TLS connection: a record
// of type handshake (the ClientHello). No HTTP method starts with it.
const tlsRecordHandshake = 0x16

// sniffTimeout bounds how long a new connection may stay silent before
// its first byte says which protocol it speaks.
const sniffTimeout = HeaderTimeout

// SniffTLS wraps ln so that each accepted connection whose first byte
// opens a TLS handshake is served over TLS, with the certificate leaf
// returns for the name the client asked for (the local CA's
// ca.Authority.Leaf), and every other connection as it is. Certificates
// are given for localhost, loopback addresses and the address the client
// connected to; other names are refused (http.Server logs the failed
// handshake). Accept never waits on one slow client: connections are
// sniffed on their own goroutines.
func SniffTLS(ln net.Listener, leaf func(host string) (*tls.Certificate, error)) net.Listener {
	s := &sniffListener{Listener: ln, ready: make(chan net.Conn), errs: make(chan error), done: make(chan struct{})}
	s.config = &tls.Config{
		NextProtos: []string{"http/1.1"}, // WebSocket upgrades are HTTP/1.1 only
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			host, err := certificateName(hello)
			if err != nil {
				return nil, err
			}
			return leaf(host)
		},
	}
	go s.acceptLoop()
	return s
}

type sniffListener struct {
	net.Listener
	config *tls.Config
	ready  chan net.Conn
	errs   chan error // the inner listener's Accept errors, passed on one by one
	done   chan struct{}
	once   sync.Once
}

// acceptLoop accepts until the inner listener is closed. Any other Accept
// error (running out of descriptors) is handed to the server's next Accept,
// which waits and calls again: handing it over blocks until then, so the
// loop backs off as the server does.
func (s *sniffListener) acceptLoop() {
	for {
		c, err := s.Listener.Accept()
		if err == nil {
			go s.sniff(c)
			continue
		}
		if errors.Is(err, net.ErrClosed) {
			s.once.Do(func() { close(s.done) })
			return
		}
		select {
		case s.errs <- err:
		case <-s.done:
			return
		}
	}
}

// sniff reads the connection's first byte and hands it over as TLS or as
// it is; a connection that sends nothing in time is closed.
func (s *sniffListener) sniff(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(sniffTimeout))
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var out net.Conn = &peekedConn{Conn: c, r: br}
	if first[0] == tlsRecordHandshake {
		out = tls.Server(out, s.config)
	}
	select {
	case s.ready <- out:
	case <-s.done:
		out.Close()
	}
}

func (s *sniffListener) Accept() (net.Conn, error) {
	select {
	case c := <-s.ready:
		return c, nil
	case err := <-s.errs:
		return nil, err
	case <-s.done:
		return nil, net.ErrClosed
	}
}

func (s *sniffListener) Close() error {
	s.once.Do(func() { close(s.done) })
	return s.Listener.Close()
}

// peekedConn reads first what was peeked, then from the connection
// itself: read through the peek's buffer, every request on a kept-alive
// connection would be copied once more. Reads of a connection never run
// at once (net/http and crypto/tls each read from one place at a time).
type peekedConn struct {
	net.Conn
	r *bufio.Reader // nil once what it held has been read
}

func (c *peekedConn) Read(p []byte) (int, error) {
	if c.r != nil && c.r.Buffered() == 0 {
		c.r = nil
	}
	if c.r == nil {
		return c.Conn.Read(p)
	}
	return c.r.Read(p)
}

// CloseWrite passes a half-close on to the connection, when it has one.
func (c *peekedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// certificateName is the name the leaf is made for: the name the client
// asked for (SNI) when it is localhost or a loopback address, else the
// address it connected to (clients send no SNI for an IP address).
func certificateName(hello *tls.ClientHelloInfo) (string, error) {
	local := ""
	if a, ok := hello.Conn.LocalAddr().(*net.TCPAddr); ok {
		local = a.IP.String()
	}
	name := strings.ToLower(strings.TrimSuffix(hello.ServerName, "."))
	switch {
	case name == "":
		if local == "" {
			return "", errors.New("adkproxy: no server name and no local address to make a certificate for")
		}
		return local, nil
	case name == "localhost" || name == local:
		return name, nil
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return name, nil
	}
	return "", fmt.Errorf("adkproxy: its listener has certificates for localhost, loopback addresses and %s only, not %q; connect to one of those", local, name)
}
