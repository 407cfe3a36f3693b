// Live replay: a recorded connection played back, server frames sent in
// their order and each client frame compared with the recorded one.

package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/gorilla/websocket"
)

// replayLive plays a recorded connection back: server frames are sent in
// their recorded order, each client frame is read where the recording has
// one and compared with it. A frame that differs ends the connection with
// close code 1008 naming the first differing field (strict), or is
// reported and passed over (lenient). When the recording is used up the
// connection is closed, never left waiting.
func (s *Server) replayLive(w http.ResponseWriter, r *http.Request, t *tape, e *entry, req *cassettes.Request) {
	s.playLive(w, r, t, e, req, nil)
}

// replayLiveFault plays the connection the next one would get, unused, up
// to the fault, which ends it: a close with its code, or a goAway frame
// and a close. A connection with no recording gets the fault at once.
func (s *Server) replayLiveFault(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request, what *fault.What) {
	e := t.peek(t.lives, liveKey(t.m, req))
	if e == nil {
		e = &entry{x: &cassettes.Exchange{Request: *req, Live: &cassettes.Live{}}}
	}
	s.playLive(w, r, t, e, req, what)
}

func (s *Server) playLive(w http.ResponseWriter, r *http.Request, t *tape, e *entry, req *cassettes.Request, what *fault.What) {
	answer := http.Header{}
	if p := e.x.Response.Header.Get("Sec-WebSocket-Protocol"); p != "" {
		answer.Set("Sec-WebSocket-Protocol", p)
	}
	conn, err := upgrader.Upgrade(w, r, answer)
	if err != nil {
		t.markContested(e) // asked for, though the client could not take it
		return
	}
	defer conn.Close()
	s.limitLive(conn) // live_limits.go
	defer s.lives.enter(func() { goingAway(conn) })()
	p := &livePlayer{s: s, t: t, e: e, req: req, conn: conn, ctx: r.Context(), fault: what}
	p.play()
	if !p.differed && what == nil {
		s.report.matched(t.name, e.x) // a connection is one outcome: matched, or the mismatch
	}
}

// livePlayer replays one recorded connection.
type livePlayer struct {
	s    *Server
	t    *tape
	e    *entry
	req  *cassettes.Request
	conn *websocket.Conn
	ctx  context.Context
	// closed: a close frame was sent to the client.
	closed bool
	// clientClose is the close frame the client sent, once it has.
	clientClose *websocket.CloseError
	// differed: a client frame differed from the recording (reported).
	differed bool
	// fault, when set, ends the connection after fault.Frames server
	// frames (faults.go); sent counts them.
	fault *fault.What
	sent  int
}

func (p *livePlayer) play() {
	var last time.Duration
	p.conn.SetCloseHandler(func(code int, text string) error {
		p.clientClose = &websocket.CloseError{Code: code, Text: text}
		return nil
	})
	for i, f := range p.e.x.Live.Frames {
		if p.faultNow() {
			return
		}
		if f.FromClient {
			if !p.expect(i, f) {
				return
			}
			last = f.At
			continue
		}
		// The recorded time since the previous frame, either way: a
		// server frame that answered a client frame waits as long after
		// it as the upstream took.
		if p.s.cfg.ReplayTiming && p.s.cfg.Clock.Sleep(p.ctx, f.At-last) != nil {
			return
		}
		last = f.At
		if !p.send(f) {
			return
		}
		p.sent++
	}
	if p.fault != nil {
		p.sent = p.fault.Frames // the recording ends before the fault's frame count
		p.faultNow()
		return
	}
	if !p.closed {
		p.close(websocket.CloseNormalClosure, "adkproxy: the recording of this connection ends here")
	}
}

// faultNow ends the connection with the fault once its frames are sent.
func (p *livePlayer) faultNow() bool {
	f := p.fault
	if f == nil || p.sent < f.Frames {
		return false
	}
	if f.Kind == fault.GoAway {
		p.conn.WriteMessage(websocket.BinaryMessage, []byte(`{"goAway": {"timeLeft": "0s"}}`))
		p.close(websocket.CloseNormalClosure, "adkproxy fault: goAway")
		return true
	}
	p.close(f.Code, fmt.Sprintf("adkproxy fault: close %d", f.Code))
	return true
}

// send writes a recorded server frame; false when the connection is gone.
func (p *livePlayer) send(f cassettes.Frame) bool {
	switch f.Kind {
	case cassettes.FrameClose:
		p.close(f.Code, string(f.Data))
		return true
	case cassettes.FrameBinary:
		return p.conn.WriteMessage(websocket.BinaryMessage, f.Data) == nil
	}
	return p.conn.WriteMessage(websocket.TextMessage, f.Data) == nil
}

func (p *livePlayer) close(code int, reason string) {
	if p.closed {
		return
	}
	p.closed = true
	p.conn.WriteControl(websocket.CloseMessage, closeMessage(code, reason), time.Now().Add(time.Second))
}

// expect reads the client's next frame and compares it with recorded frame
// i; false when the connection ends here.
func (p *livePlayer) expect(i int, want cassettes.Frame) bool {
	if p.clientClose != nil {
		return want.Kind == cassettes.FrameClose // already read
	}
	kind, data, err := p.conn.ReadMessage()
	if errors.Is(err, websocket.ErrReadLimit) {
		p.s.liveTooBig(p.t.name, p.req, true) // the library has closed it with 1009
		return false
	}
	if err != nil {
		if want.Kind == cassettes.FrameClose && p.clientClose != nil {
			return true
		}
		return false // the client went away, or closed early
	}
	if want.Kind == cassettes.FrameClose {
		p.differs(i, []matcher.Difference{{Path: "frame", Kind: matcher.Added, Got: frameSummary(kind, data)}},
			"the recording has the client closing the connection here")
		return false
	}
	// The recording holds the frame scrubbed: compare it scrubbed, and
	// never echo a secret in a message.
	data = p.s.cfg.Redactor.Bytes(data)
	diffs := p.s.m.DiffFrame(want.Data, data)
	if gotKind := frameKind(kind); gotKind != want.Kind && len(diffs) == 0 {
		diffs = []matcher.Difference{{Path: "opcode", Kind: matcher.Changed, Recorded: string(want.Kind), Got: string(gotKind)}}
	}
	if len(diffs) == 0 {
		return true
	}
	return p.differs(i, diffs, "")
}

// differs reports client frame i as differing from the recording; strict
// replay closes the connection with 1008, lenient replay goes on.
func (p *livePlayer) differs(i int, diffs []matcher.Difference, why string) bool {
	s, t := p.s, p.t
	head := fmt.Sprintf("cassette %q, Live connection to %s: client frame %d differs from the recording", t.name, p.req.Path, i+1)
	if why != "" {
		head += " (" + why + ")"
	}
	msg := hinted(head+":"+matcher.FormatDiffs(diffs, maxShownDiffs), "\n", s.cfg.Hints.Mismatch)
	o := outcomeFor(matcher.OutcomeMismatched, t.name, p.req, nil)
	o.Diffs, o.Message = keptDiffs(diffs), msg
	p.differed = true
	if !t.strict {
		o.Served = true
		s.report.add(o)
		s.log.Warn("Live frame differs from the recording; went on with the recording (lenient)", "cassette", t.name, "detail", msg)
		return true
	}
	t.markContested(p.e)
	s.report.add(o)
	s.log.Warn(string(matcher.OutcomeMismatched)+" Live frame", "cassette", t.name, "path", p.req.Path, "detail", msg)
	p.close(closePolicy, fmt.Sprintf("adkproxy: frame %d differs from the recording at %s", i+1, diffs[0].Path))
	return false
}

func frameKind(kind int) cassettes.FrameKind {
	if kind == websocket.BinaryMessage {
		return cassettes.FrameBinary
	}
	return cassettes.FrameText
}

func frameSummary(kind int, data []byte) string {
	return fmt.Sprintf("a %s frame of %d bytes", frameKind(kind), len(data))
}
