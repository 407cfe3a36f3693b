// Live frames over --max-body: each side of a Live connection may send a
// message of at most the body limit; a larger one closes the connection
// with 1009 (message too big), is reported, and is never kept.

package proxy

import (
	"fmt"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/gorilla/websocket"
)

// limitLive bounds the messages read from c by the body limit.
func (s *Server) limitLive(c *websocket.Conn) { c.SetReadLimit(s.cfg.MaxBody) }

// liveTooBig reports a Live message over the body limit.
func (s *Server) liveTooBig(cassette string, req *cassettes.Request, fromClient bool) string {
	from := "the upstream"
	if fromClient {
		from = "the client"
	}
	msg := fmt.Sprintf("cassette %q, Live connection to %s: %s sent a message over the body limit of %d bytes; the connection was closed with 1009 (raise --max-body)",
		cassette, req.Path, from, s.cfg.MaxBody)
	s.report.failed()
	s.log.Warn("Live message over --max-body", "cassette", cassette, "path", req.Path, "from", from, "limit", s.cfg.MaxBody)
	return msg
}

// tooBig ends a recorded connection whose src sent a message over the
// limit: the websocket library has already closed src with 1009; dst is
// closed with 1009 too, and the recording keeps the close the client got.
func (l *liveRecorder) tooBig(src, dst *websocket.Conn, fromClient bool) {
	reason := "adkproxy: a message over --max-body"
	l.keep(cassettes.Frame{FromClient: false, Kind: cassettes.FrameClose, Code: websocket.CloseMessageTooBig, Data: []byte(reason)})
	dst.WriteControl(websocket.CloseMessage, closeMessage(websocket.CloseMessageTooBig, reason), time.Now().Add(time.Second))
	dst.SetReadDeadline(time.Now().Add(time.Second))
	if l.overLimit != nil {
		l.overLimit(fromClient)
	}
}
