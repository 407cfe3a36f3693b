// Live API connections inside an intercepted tunnel: goproxy wants an
// *http.Response, so a handler that takes the connection over (a WebSocket
// upgrade) is given one end of an in-memory pipe; the 101 head it writes
// there becomes the response, and the rest of the pipe the body goproxy
// relays both ways.

package proxy

import (
	"bufio"
	"errors"
	"net"
	"net/http"
)

// Hijack implements http.Hijacker for respond's handlers.
func (w *pipeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.status != 0 {
		return nil, nil, errors.New("adkproxy: the answer's head was already sent")
	}
	ours, theirs := net.Pipe()
	go func() {
		br := bufio.NewReader(theirs)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			theirs.Close()
			w.status = http.StatusBadGateway
			w.sendHead()
			return
		}
		w.status, w.header = resp.StatusCode, resp.Header
		w.hijacked = &hijackedBody{r: br, Conn: theirs}
		w.sendHead()
	}()
	return ours, bufio.NewReadWriter(bufio.NewReader(ours), bufio.NewWriter(ours)), nil
}

// hijackedBody is the proxy's end of a hijacked handler's pipe: what is
// left after the head, and the way back.
type hijackedBody struct {
	r *bufio.Reader
	net.Conn
}

func (b *hijackedBody) Read(p []byte) (int, error) { return b.r.Read(p) }
