// Recording: forwarding a request upstream, streaming the answer back as
// it arrives, and keeping the exchange, placed in its conversation.

package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// forward sends a request upstream, streams the answer back and keeps the
// exchange. SSE events are passed on and flushed one by one, as they
// arrive, so an agent sees the same pacing as without the proxy. A model
// call is placed in its session and invocation when it arrives, and the
// tool calls in its answer are registered before the client can act on
// them, so a sub-agent they start is placed in the same invocation.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, t *tape, body []byte, stored cassettes.Request) {
	if t.persist {
		s.storeHeaders(&stored, r) // passthrough keeps none
	}
	if why := missingVersion(stored.Path); why != "" {
		s.log.Warn("forwarding a request the upstream will not know", "detail", why)
	}
	out, err := s.upstreamRequest(r, body)
	if err != nil {
		s.report.failed()
		writeError(w, http.StatusBadRequest, statusInvalidArgument, err.Error())
		return
	}
	// The request goes upstream at once and is analysed meanwhile: the
	// parse would otherwise add its time to every call's latency. Placing
	// the call (cheap) waits for both the analysis and the answer's head.
	analysed := make(chan *analysis, 1)
	analyse(func() {
		a := &analysis{path: stored.Path, body: stored.Body}
		if t.persist {
			a.call, a.read, a.ok = conversation.AnalyzeRead(s.m, stored.Path, stored.Body)
		} else {
			a.call, a.ok = conversation.Analyze(s.m, stored.Path, stored.Body) // no fingerprint: nothing is kept
		}
		a.model = a.ok
		if !a.ok {
			a.call, a.ok = t.org.AnalyzeInteraction(stored.Path, stored.Body)
		}
		analysed <- a
	})
	s.relay(w, r, t, out, stored, func(x *cassettes.Exchange) (conversation.Token, *analysis) {
		a := <-analysed
		reuse := a
		if s.cfg.BeforeSave != nil {
			reuse = nil // the hook may edit the body in place: what is kept is analysed anew
		}
		if !a.ok {
			return conversation.Token{}, reuse
		}
		if a.model {
			t.freeSuperseded(a.call)
		}
		place, token := t.org.Place(a.call, strings.TrimSpace(r.Header.Get(HeaderInvocation)))
		x.Place = &place
		if a.model {
			t.fileListings(place)
		}
		return token, reuse
	})
}

// analysis is what conversation makes of a forwarded request's body:
// placing the call reads it, and so does keeping the exchange, which then
// need not parse the body again.
type analysis struct {
	call  *conversation.Call
	ok    bool
	model bool   // call is conversation.Analyze's (a model call), not an interaction's
	path  string // what was analysed
	body  []byte
	read  wire.Body // the body as the matcher read it (model calls), for the fingerprint
}

// modelCall is conversation.Analyze's call for path and body: the one
// analysed already when it read the same bytes, else a new analysis.
func modelCall(a *analysis, m *matcher.Matcher, path string, body []byte) *conversation.Call {
	if a != nil && a.path == path && bytes.Equal(a.body, body) {
		if a.model {
			return a.call
		}
		return nil // not a model call
	}
	call, _ := conversation.Analyze(m, path, body)
	return call
}

// relay sends out upstream, streams the answer to the client and keeps the
// exchange; place files it in the conversation once the answer's head has
// come, and returns the token its function calls are reported with.
func (s *Server) relay(w http.ResponseWriter, r *http.Request, t *tape, out *http.Request, stored cassettes.Request, place func(*cassettes.Exchange) (conversation.Token, *analysis)) {
	start := time.Now()
	resp, err := s.cfg.Transport.RoundTrip(out)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client went away; nothing was answered, nothing to keep
		}
		s.report.failed()
		s.log.Warn("upstream unreachable", "host", out.URL.Host, "error", err)
		writeError(w, http.StatusBadGateway, statusUnavailable,
			fmt.Sprintf("upstream %s is unreachable (%v); nothing was recorded", out.URL.Host, errorText(err)))
		return
	}
	defer resp.Body.Close()
	s.uploads.handOut(resp.Header, s.cfg.Redactor)

	// The client sees the headers a replay will give it, so a recording
	// run and a replay run look the same from the agent's side. The two
	// share their values: setting a header replaces its slice, and what is
	// kept is scrubbed into new ones (keep).
	header := withoutHeaders(resp.Header, unstoredResponseHeaders...)
	x := &cassettes.Exchange{Request: stored, Response: cassettes.Response{Status: resp.StatusCode, Header: header}}
	token, analysed := place(x)
	seen := func(payload []byte) { t.org.Calls(token, conversation.ResponseCalls(payload)) }
	copyHeaders(w.Header(), header)
	pointHere(w.Header(), r)
	if isEventStream(resp.Header) {
		readErr := s.teeEvents(w, resp, &x.Response, start, seen)
		if errors.Is(readErr, errOverLimit) {
			t.org.Abandon(token)
			s.streamOversized(w, resp, x, t, &stored)
			return
		}
		// The client sees the end of a chunked stream only when this
		// handler returns, so keeping the exchange now still comes first;
		// one that cannot be kept breaks the stream before its end.
		if s.keep(t, x, &stored, start, token, analysed) != nil || readErr != nil {
			// The upstream connection broke: the client's must break the
			// same way, after the same bytes, or it would see a clean but
			// short answer.
			panic(http.ErrAbortHandler)
		}
		return
	}
	// Passthrough keeps no answer: its buffer is recycled once written.
	data, over, readErr := readAnswer(resp.Body, resp.ContentLength, s.cfg.MaxBody, !t.persist)
	if over {
		t.org.Abandon(token)
		s.forwardOversized(w, resp, data, t, &stored)
		return
	}
	x.Response.Body = data
	x.Response.End = cassettes.EndComplete
	if readErr != nil {
		x.Response.End = cassettes.EndReset
	}
	seen(data)
	if err := s.keep(t, x, &stored, start, token, analysed); err != nil { // durable before the body is released
		if !t.persist {
			releaseBody(data)
		}
		writeError(w, http.StatusInsufficientStorage, statusUnavailable, notKeptMessage(err))
		return
	}
	if readErr == nil {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	}
	doneWriting := s.writeDeadline(w)
	w.WriteHeader(resp.StatusCode)
	w.Write(data)
	doneWriting()
	if !t.persist {
		releaseBody(data)
	}
	if readErr != nil {
		panic(http.ErrAbortHandler)
	}
}

// keep finishes a forwarded exchange: scrubs it, records it (journalled to
// disk when the cassette persists) and reports it. analysed, when not
// nil, is the request's analysis, which recording reuses. An error: the
// journal could not be written, nothing is kept, and the client must not
// get the answer (on disk before the client sees its end, or not at all).
func (s *Server) keep(t *tape, x *cassettes.Exchange, stored *cassettes.Request, start time.Time, token conversation.Token, analysed *analysis) error {
	x.Response.Latency = time.Since(start)
	t.org.Finish(token, &x.Response) // a failed step's retry belongs to the same invocation
	t.org.Interacted(x)
	s.fileConfirmations(t, x)
	if t.persist {
		s.cfg.Redactor.Exchange(x) // passthrough writes nothing: nothing to scrub
	}
	if !s.beforeSave(t, x, stored) {
		return nil
	}
	if err := s.storeUpload(t, x); err != nil {
		s.log.Warn("uploaded file kept in the cassette, not in a side file", "cassette", t.name, "error", err.Error())
	}
	old, err := t.record(x, analysed)
	var je *journalError
	switch {
	case errors.As(err, &je) && !je.kept:
		t.org.Abandon(token) // a retry takes its place
		s.report.failed()
		s.unwritten.add(err)
		s.log.Error("answer withheld: the exchange could not be written to the journal (is the disk full?); the client gets 507", "cassette", t.name, "error", err.Error())
		return err
	case err != nil:
		s.log.Error("exchange kept in memory only: the journal could not be written; it is saved at exit", "cassette", t.name, "error", err.Error())
	}
	if old != nil {
		s.log.Info("new episode replaces the recording at its place", "cassette", t.name, "place", describePlace(t.name, old.x.Place))
	}
	kind := matcher.OutcomeRecorded
	if !t.persist {
		kind = matcher.OutcomeForwarded
	}
	s.report.add(outcomeFor(kind, t.name, stored, x.Place))
	if s.log.Enabled(context.Background(), slog.LevelDebug) { // spares every call boxing the attributes
		s.log.Debug("recorded", "cassette", t.name, "method", stored.Method, "path", stored.Path,
			"status", x.Response.Status, "end", x.Response.End)
	}
	return nil
}

// notKeptMessage is what a client whose answer could not be recorded is
// told instead of the answer.
func notKeptMessage(err error) string {
	return "the answer was not passed on because it could not be recorded on disk (" + err.Error() + "); free space on the disk that holds the cassettes and send the request again"
}

// teeEvents copies an SSE body event by event.
func (s *Server) teeEvents(w http.ResponseWriter, resp *http.Response, out *cassettes.Response, start time.Time, seen func([]byte)) error {
	flusher, _ := w.(http.Flusher)
	w.WriteHeader(resp.StatusCode)
	if flusher != nil {
		flusher.Flush()
	}
	out.Events = []cassettes.Event{}
	out.End = cassettes.EndComplete
	last := start
	events := newEventReader(&capReader{r: resp.Body, left: s.cfg.MaxBody + 1})
	defer events.Close()
	for {
		ev, err := events.Next()
		if len(ev) > 0 {
			now := time.Now()
			out.Events = append(out.Events, cassettes.Event{Data: ev, After: now.Sub(last)})
			last = now
			seen(wire.EventData(ev))
			w.Write(ev)
			// Events that came in one read go out in one flush; an event
			// is never held for bytes still to come.
			if flusher != nil && !events.ready() {
				flusher.Flush()
			}
		}
		if err == nil {
			continue
		}
		if !isCleanEnd(err) {
			out.End = cassettes.EndReset
			return err
		}
		if len(ev) > 0 {
			out.End = cassettes.EndEOF // the body stopped inside an event
		}
		return nil
	}
}

// upstreamRequest builds the request to the real API: same method, path,
// query and body, without hop-by-hop or adkproxy headers. Accept-Encoding
// is left to the transport, which then decodes gzip itself, so cassettes
// hold readable bodies.
func (s *Server) upstreamRequest(r *http.Request, body []byte) (*http.Request, error) {
	if origin, ok := s.uploads.origin(r.URL.EscapedPath(), s.cfg.Redactor.Query(r.URL.RawQuery)); ok {
		return newUpstreamRequest(r, origin, body) // an upload chunk, to the host the API named
	}
	base := s.cfg.Upstream
	if u, ok := vertexUpstream(r.URL.Path); ok {
		base = u
		if s.cfg.VertexUpstream != nil {
			base = s.cfg.VertexUpstream
		}
	}
	target := *base
	target.Path = strings.TrimSuffix(base.Path, "/") + r.URL.Path
	if r.URL.RawPath != "" {
		target.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + r.URL.RawPath
	}
	target.RawQuery = r.URL.RawQuery
	return newUpstreamRequest(r, target.String(), body)
}

// newUpstreamRequest is r with its body, for target, without hop-by-hop
// or adkproxy headers.
func newUpstreamRequest(r *http.Request, target string, body []byte) (*http.Request, error) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("cannot forward %s %s: %v", r.Method, r.URL.Path, err)
	}
	out.Header = withoutHeaders(r.Header, "Accept-Encoding", "Host", "Content-Length",
		HeaderCassette, HeaderTestName, HeaderInvocation)
	out.ContentLength = int64(len(body))
	return out, nil
}

// errorText says why the upstream could not be reached.
func errorText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}
