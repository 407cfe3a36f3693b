// The Live API: a WebSocket upgrade to a Live path is proxied upstream frame
// by frame while recording (every frame kept, in order) and played back from
// its recording in replay, each client frame checked against the recorded
// one before the server frames that followed it are sent.

package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/gorilla/websocket"
)

// livePath matches the Live API's WebSocket paths: the Gemini API's
// GenerativeService (and its Constrained variant for ephemeral tokens) and
// Vertex AI's LlmBidiService, any version, after any base path and with
// the doubled slash JS and Python send after the host.
var livePath = regexp.MustCompile(`/ws/google\.(?:ai\.generativelanguage\.v[0-9a-z]+\.GenerativeService\.BidiGenerateContent(?:Constrained)?|cloud\.aiplatform\.v[0-9a-z]+\.LlmBidiService/BidiGenerateContent)$`)

// isLive reports whether r opens a Live API connection.
func isLive(r *http.Request) bool {
	return websocket.IsWebSocketUpgrade(r) && livePath.MatchString(r.URL.Path)
}

// Close codes adkproxy sends.
const (
	// closePolicy: a client frame differs from the recording, or comes
	// after the recording ended (RFC 6455 "policy violation").
	closePolicy = websocket.ClosePolicyViolation
	// maxCloseReason is the longest reason a close frame can carry.
	maxCloseReason = 123
)

// liveHandshakeHeaders are the upgrade's own headers: they belong to one
// connection and are made afresh by each side, never stored or passed on.
var liveHandshakeHeaders = []string{"Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions",
	"Sec-Websocket-Accept", "Sec-Websocket-Protocol"}

var upgrader = websocket.Upgrader{
	// Any origin: adkproxy stands in for the API, which checks none, and
	// listens on loopback.
	CheckOrigin:     func(*http.Request) bool { return true },
	ReadBufferSize:  64 << 10,
	WriteBufferSize: 64 << 10,
}

// serveLive handles a Live API upgrade: replayed from the cassette when it
// holds a connection on this path, else recorded through the upstream.
func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	name := cassetteName(r, s.DefaultCassette())
	path, err := s.pathFor(name)
	if err != nil {
		s.report.failed()
		writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf("bad cassette name in %s header: %v", HeaderCassette, err))
		return
	}
	req := s.capture(r, nil)
	t, ok := s.openTape(w, name, path)
	if !ok {
		return
	}
	if t == nil {
		s.paths.Delete(name)
		s.miss(w, OutcomeUnmatched, name, &req, nil, nil, hinted(fmt.Sprintf("cassette %s: there is no such cassette in %s (it has: %s)",
			cassettes.ShortName(name), s.cfg.Dir, listOrNone(s.Cassettes())), "; ", s.cfg.Hints.Record))
		return
	}
	if t.replaying {
		if e, usedUp := t.takeLive(&req, s.cfg.AllowRepeats); e != nil {
			s.replayLive(w, r, t, e, &req)
			return
		} else if !t.recording {
			msg := fmt.Sprintf("cassette %q: no Live connection to %s was recorded", t.name, req.Path)
			if usedUp > 0 {
				msg = fmt.Sprintf("cassette %q: all %d recorded Live connections to %s were already used", t.name, usedUp, req.Path)
			}
			s.miss(w, OutcomeUnmatched, t.name, &req, nil, nil, hinted(msg, "; ", s.cfg.Hints.Rerecord))
			return
		}
	}
	s.recordLive(w, r, t, req)
}

// liveKey is what a recorded connection is found by: its path, with the
// doubled slash some SDKs send made single, and query (credentials are
// already gone from both).
func liveKey(m *matcher.Matcher, req *cassettes.Request) matcher.Fingerprint {
	return m.Fingerprint(&cassettes.Request{Method: req.Method, Path: "/" + strings.TrimLeft(req.Path, "/"), Query: req.Query})
}

func (t *tape) addLive(e *entry) {
	if t.lives == nil {
		t.lives = map[matcher.Fingerprint][]*entry{}
	}
	e.fp = liveKey(t.m, &e.x.Request)
	t.lives[e.fp] = append(t.lives[e.fp], e)
}

// takeLive hands out the next unused recorded connection for req; once
// all are used, the last one again when repeats are allowed.
func (t *tape) takeLive(req *cassettes.Request, allowRepeats bool) (*entry, int) {
	return t.takeFrom(t.lives, liveKey(t.m, req), allowRepeats)
}

// recordLive dials the upstream's Live endpoint with the client's
// credentials, upgrades the client, and relays frames both ways, keeping
// each before passing it on so that the order on disk is the order
// adkproxy saw. The connection is kept when both sides are done.
func (s *Server) recordLive(w http.ResponseWriter, r *http.Request, t *tape, stored cassettes.Request) {
	s.storeHeaders(&stored, r)
	stored.Header = withoutHeaders(stored.Header, liveHandshakeHeaders...)
	target := s.liveUpstream(r)
	dialer := websocket.Dialer{
		NetDialContext:   newDialer(s.cfg.ConnectTo).DialContext,
		HandshakeTimeout: s.cfg.Limits.UpstreamHeaderTimeout,
		Subprotocols:     websocket.Subprotocols(r),
		ReadBufferSize:   64 << 10,
		WriteBufferSize:  64 << 10,
	}
	if s.cfg.UpstreamRoots != nil {
		dialer.TLSClientConfig = &tls.Config{RootCAs: s.cfg.UpstreamRoots}
	}
	header := withoutHeaders(r.Header, append([]string{"Host", HeaderCassette, HeaderTestName, HeaderInvocation}, liveHandshakeHeaders...)...)
	start := time.Now()
	up, resp, err := dialer.DialContext(r.Context(), target.String(), header)
	if err != nil {
		s.report.failed()
		if resp != nil {
			// The upstream refused the upgrade (a bad key, an unknown
			// model): the client gets its answer, as a plain HTTP error.
			s.log.Warn("upstream refused the Live connection", "host", target.Host, "status", resp.StatusCode)
			writeError(w, resp.StatusCode, statusUnavailable, fmt.Sprintf("upstream %s refused the Live connection (HTTP %d); nothing was recorded", target.Host, resp.StatusCode))
			return
		}
		s.log.Warn("upstream unreachable", "host", target.Host, "error", err)
		writeError(w, http.StatusBadGateway, statusUnavailable, fmt.Sprintf("upstream %s is unreachable (%v); nothing was recorded", target.Host, errorText(err)))
		return
	}
	defer up.Close()
	answer := http.Header{}
	if p := up.Subprotocol(); p != "" {
		answer.Set("Sec-WebSocket-Protocol", p)
	}
	client, err := upgrader.Upgrade(w, r, answer)
	if err != nil {
		return // the upgrader has answered the client
	}
	defer client.Close()
	defer s.lives.enter(func() {
		goingAway(client)
		goingAway(up)
	})()
	x := &cassettes.Exchange{Request: stored, Live: &cassettes.Live{Frames: []cassettes.Frame{}}, Response: cassettes.Response{
		Status: http.StatusSwitchingProtocols,
		Header: withoutHeaders(resp.Header, append(unstoredResponseHeaders, liveHandshakeHeaders...)...),
		End:    cassettes.EndComplete,
	}}
	rec := &liveRecorder{start: time.Now(), x: x}
	var wg sync.WaitGroup
	wg.Go(func() { rec.relay(client, up, true) })
	wg.Go(func() { rec.relay(up, client, false) })
	wg.Wait()
	x.Response.Latency = time.Since(start)
	s.keepLive(t, x)
}

// keepLive scrubs, records and reports a finished connection.
func (s *Server) keepLive(t *tape, x *cassettes.Exchange) {
	s.cfg.Redactor.Exchange(x)
	if t.persist {
		if err := cassettes.StoreLiveBlobs(s.cfg.Dir, t.path, x); err != nil {
			// The frames keep every byte: the media stays in the cassette.
			s.log.Warn("Live media kept in the cassette: its side file could not be written", "cassette", t.name, "error", err.Error())
			for i := range x.Live.Frames {
				x.Live.Frames[i].Blobs = nil
			}
		}
	}
	if _, err := t.record(x); err != nil {
		s.log.Error("Live connection kept in memory only: the journal could not be written; it is saved at exit", "cassette", t.name, "error", err.Error())
	}
	kind := OutcomeRecorded
	if !t.persist {
		kind = OutcomeForwarded
	}
	s.report.add(outcomeFor(kind, t.name, &x.Request, nil))
	s.log.Debug("recorded Live connection", "cassette", t.name, "path", x.Request.Path, "frames", len(x.Live.Frames))
}

// liveUpstream is where a Live connection goes: the upstream's host (for
// connections through the forward proxy too, as for its HTTP requests), ws:
// for an http: upstream and wss: for https:, with the client's path and
// query (its key included: the upstream needs it).
func (s *Server) liveUpstream(r *http.Request) *url.URL {
	base := s.cfg.Upstream
	if strings.Contains(r.URL.Path, ".LlmBidiService/") {
		base = &url.URL{Scheme: "https", Host: "aiplatform.googleapis.com"}
		if s.cfg.VertexUpstream != nil {
			base = s.cfg.VertexUpstream
		}
	}
	target := *base
	target.Scheme = map[string]string{"http": "ws", "https": "wss"}[base.Scheme]
	target.Path = strings.TrimSuffix(base.Path, "/") + r.URL.Path
	target.RawPath = ""
	if r.URL.RawPath != "" {
		target.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + r.URL.RawPath
	}
	target.RawQuery = r.URL.RawQuery
	return &target
}

// liveRecorder keeps a connection's frames in the order they arrive from
// either side.
type liveRecorder struct {
	start time.Time
	mu    sync.Mutex
	x     *cassettes.Exchange
}

func (l *liveRecorder) keep(f cassettes.Frame) {
	l.mu.Lock()
	f.At = time.Since(l.start)
	l.x.Live.Frames = append(l.x.Live.Frames, f)
	l.mu.Unlock()
}

// relay copies messages from src to dst until src closes, keeping each
// before passing it on. A close frame is kept and passed on with its code
// and reason; a connection that breaks without one closes the other side
// as going away.
func (l *liveRecorder) relay(src, dst *websocket.Conn, fromClient bool) {
	src.SetCloseHandler(func(code int, text string) error {
		l.keep(cassettes.Frame{FromClient: fromClient, Kind: cassettes.FrameClose, Code: code, Data: []byte(text)})
		dst.WriteControl(websocket.CloseMessage, closeMessage(code, text), time.Now().Add(time.Second))
		return nil
	})
	for {
		kind, data, err := src.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				dst.WriteControl(websocket.CloseMessage, closeMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
			}
			// Unblock the other direction's read, which would otherwise
			// wait for a peer that has nothing more to say.
			dst.SetReadDeadline(time.Now().Add(time.Second))
			return
		}
		f := cassettes.Frame{FromClient: fromClient, Kind: cassettes.FrameText, Data: data}
		if kind == websocket.BinaryMessage {
			f.Kind = cassettes.FrameBinary
		}
		l.keep(f)
		if dst.WriteMessage(kind, data) != nil {
			return
		}
	}
}

// liveSet tracks the open Live connections, so that Close can end them
// and wait until each is kept before cassettes are written.
type liveSet struct {
	mu    sync.Mutex
	wg    sync.WaitGroup
	stops map[*func()]struct{}
}

// enter registers a connection and how to end it; call leave when done.
func (l *liveSet) enter(stop func()) (leave func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stops == nil {
		l.stops = map[*func()]struct{}{}
	}
	l.stops[&stop] = struct{}{}
	l.wg.Add(1)
	return func() {
		l.mu.Lock()
		delete(l.stops, &stop)
		l.mu.Unlock()
		l.wg.Done()
	}
}

// end closes every open connection and waits until all have finished.
func (l *liveSet) end() {
	l.mu.Lock()
	for stop := range l.stops {
		(*stop)()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// goingAway tells a peer adkproxy is shutting down and stops waiting for it.
func goingAway(c *websocket.Conn) {
	c.WriteControl(websocket.CloseMessage, closeMessage(websocket.CloseGoingAway, "adkproxy is shutting down"), time.Now().Add(time.Second))
	c.SetReadDeadline(time.Now().Add(time.Second))
}

// closeMessage is a close frame's payload; 1005 (no status) is sent as an
// empty close, as the protocol requires.
func closeMessage(code int, reason string) []byte {
	if code == websocket.CloseNoStatusReceived || code == 0 {
		return []byte{}
	}
	return websocket.FormatCloseMessage(code, clipReason(reason))
}

// clipReason fits a close reason into a close frame, on a rune boundary.
func clipReason(s string) string {
	if len(s) <= maxCloseReason {
		return s
	}
	s = s[:maxCloseReason]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// replayLive plays a recorded connection back: server frames are sent in
// their recorded order, each client frame is read where the recording has
// one and compared with it. A frame that differs ends the connection with
// close code 1008 naming the first differing field (strict), or is
// reported and passed over (lenient). When the recording is used up the
// connection is closed, never left waiting.
func (s *Server) replayLive(w http.ResponseWriter, r *http.Request, t *tape, e *entry, req *cassettes.Request) {
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
	defer s.lives.enter(func() { goingAway(conn) })()
	p := &livePlayer{s: s, t: t, e: e, req: req, conn: conn, ctx: r.Context()}
	p.play()
	if !p.differed {
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
}

func (p *livePlayer) play() {
	var last time.Duration
	p.conn.SetCloseHandler(func(code int, text string) error {
		p.clientClose = &websocket.CloseError{Code: code, Text: text}
		return nil
	})
	for i, f := range p.e.x.Live.Frames {
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
	}
	if !p.closed {
		p.close(websocket.CloseNormalClosure, "adkproxy: the recording of this connection ends here")
	}
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
	o := outcomeFor(OutcomeMismatched, t.name, p.req, nil)
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
	s.log.Warn(OutcomeMismatched+" Live frame", "cassette", t.name, "path", p.req.Path, "detail", msg)
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
