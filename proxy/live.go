// The Live API: a WebSocket upgrade to a Live path is routed to its
// cassette, and while recording proxied upstream frame by frame, every frame
// kept in order before it is passed on (replay: live_replay.go).

package proxy

import (
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
	w = closeWhenIdle(w, s.cfg.Limits.IdleTimeout) // hijacked.go
	name := s.cassetteOf(r)
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
		s.miss(w, matcher.OutcomeUnmatched, name, &req, nil, nil, hinted(fmt.Sprintf("cassette %s: there is no such cassette in %s (it has: %s)",
			cassettes.ShortName(name), s.cfg.folder(), listOrNone(s.Cassettes())), "; ", s.cfg.Hints.Record))
		return
	}
	if t.replaying && s.faults.active() {
		if what, done := s.liveFault(w, r, t, &req); done {
			return
		} else if what != nil {
			s.replayLiveFault(w, r, t, &req, what)
			return
		}
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
			s.miss(w, matcher.OutcomeUnmatched, t.name, &req, nil, nil, hinted(msg, "; ", s.cfg.Hints.Rerecord))
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
// adkproxy saw. Frames are journalled as they pass (live_journal.go); the
// whole connection is kept when both sides are done.
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
	s.limitLive(client) // live_limits.go
	s.limitLive(up)
	defer s.lives.enter(func() {
		goingAway(client)
		goingAway(up)
	})()
	x := &cassettes.Exchange{Request: stored, Live: &cassettes.Live{Frames: []cassettes.Frame{}}, Response: cassettes.Response{
		Status: http.StatusSwitchingProtocols,
		Header: withoutHeaders(resp.Header, append(unstoredResponseHeaders, liveHandshakeHeaders...)...),
		End:    cassettes.EndComplete,
	}}
	rec := &liveRecorder{start: time.Now(), x: x, overLimit: func(fromClient bool) { s.liveTooBig(t.name, &stored, fromClient) }}
	rec.journal = s.journalLive(t, rec) // live_journal.go
	var wg sync.WaitGroup
	wg.Go(func() { rec.relay(client, up, true) })
	wg.Go(func() { rec.relay(up, client, false) })
	wg.Wait()
	rec.journal.end()
	x.Response.Latency = time.Since(start)
	s.keepLive(t, x)
}

// keepLive scrubs, records and reports a finished connection.
func (s *Server) keepLive(t *tape, x *cassettes.Exchange) {
	s.cfg.Redactor.Exchange(x)
	if !s.beforeSave(t, x, &x.Request) {
		return
	}
	if t.persist {
		if err := cassettes.StoreLiveBlobs(s.cfg.Dir, t.path, x); err != nil {
			// The frames keep every byte: the media stays in the cassette.
			s.log.Warn("Live media kept in the cassette: its side file could not be written", "cassette", t.name, "error", err.Error())
			for i := range x.Live.Frames {
				x.Live.Frames[i].Blobs = nil
			}
		}
	}
	if _, err := t.record(x, nil); err != nil {
		s.log.Error("Live connection kept in memory only: the journal could not be written; it is saved at exit", "cassette", t.name, "error", err.Error())
	}
	kind := matcher.OutcomeRecorded
	if !t.persist {
		kind = matcher.OutcomeForwarded
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
	// overLimit reports a message over the body limit (live_limits.go).
	overLimit func(fromClient bool)
	// journal writes the frames as they pass; nil when the connection is
	// journalled only when it ends (live_journal.go).
	journal *liveJournal
}

// keep adds f to the connection and returns how many frames it has.
func (l *liveRecorder) keep(f cassettes.Frame) int {
	l.mu.Lock()
	f.At = time.Since(l.start)
	l.x.Live.Frames = append(l.x.Live.Frames, f)
	n := len(l.x.Live.Frames)
	l.mu.Unlock()
	l.journal.kept()
	return n
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
		if errors.Is(err, websocket.ErrReadLimit) {
			l.tooBig(src, dst, fromClient)
			return
		}
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
		n := l.keep(f)
		if !fromClient && endsTurn(data) {
			// The client is not told a turn ended before the turn is on disk.
			l.journal.waitFor(n)
		}
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
