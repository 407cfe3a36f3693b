// The hooks by stage (Config.BeforeSave, BeforeReplay, Passthrough and
// Match): where each is called, on what, and what its answer does.

package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// ErrDrop, returned by Config.BeforeSave, keeps nothing of the exchange:
// the client has its answer, the cassette does not get the exchange, and
// the run does not fail for it.
var ErrDrop = errors.New("proxy: exchange dropped by BeforeSave")

// beforeSave passes x to Config.BeforeSave; keep is false when the hook
// dropped it or failed (the failure is remembered: it fails the run).
func (s *Server) beforeSave(t *tape, x *cassettes.Exchange, stored *cassettes.Request) (keep bool) {
	if s.cfg.BeforeSave == nil || !t.persist {
		return true
	}
	// The client may still be sent this body: the hook edits a copy.
	x.Response.Body = bytes.Clone(x.Response.Body)
	err := s.cfg.BeforeSave(x)
	if err == nil {
		return true
	}
	o := outcomeFor(matcher.OutcomeForwarded, t.name, stored, x.Place)
	if errors.Is(err, ErrDrop) {
		o.Message = "not recorded: dropped by BeforeSave"
		s.log.Debug("exchange dropped by BeforeSave", "cassette", t.name, "method", stored.Method, "path", stored.Path)
	} else {
		o.Message = "not recorded: BeforeSave: " + err.Error()
		s.refused.add(err)
		s.log.Error("exchange not recorded: BeforeSave failed", "cassette", t.name, "method", stored.Method, "path", stored.Path, "error", err.Error())
	}
	s.report.add(o)
	return false
}

// refusedSaves remembers the exchanges BeforeSave failed on: each was
// answered but not recorded, so the run fails.
type refusedSaves struct {
	mu    sync.Mutex
	n     int
	first error
}

func (r *refusedSaves) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		r.first = err
	}
	r.n++
}

func (r *refusedSaves) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return nil
	}
	return fmt.Errorf("%w: BeforeSave failed on %d exchange(s), answered but not recorded; the first: %w", ErrRunFailed, r.n, r.first)
}

// serveRecorded answers with the recording e, through Config.BeforeReplay
// when there is one. The hook edits a copy: the cassette is never changed.
func (s *Server) serveRecorded(w http.ResponseWriter, r *http.Request, e *entry) {
	x := e.x
	if s.cfg.BeforeReplay == nil {
		s.serveAnswer(w, r, &x.Response, e.answerHead())
		return
	}
	c := cloneExchange(x)
	if err := s.cfg.BeforeReplay(c); err != nil {
		s.report.failed()
		s.log.Error("recording not served: BeforeReplay failed", "method", x.Request.Method, "path", x.Request.Path, "error", err.Error())
		writeError(w, http.StatusInternalServerError, statusInternal, "BeforeReplay: "+err.Error())
		return
	}
	s.serve(w, r, &c.Response)
}

// cloneExchange copies what a hook can change in place: headers and bodies.
func cloneExchange(x *cassettes.Exchange) *cassettes.Exchange {
	c := *x
	c.Request.Header = x.Request.Header.Clone()
	c.Request.Body = bytes.Clone(x.Request.Body)
	c.Response.Header = x.Response.Header.Clone()
	c.Response.Body = bytes.Clone(x.Response.Body)
	if x.Response.Events != nil {
		c.Response.Events = make([]cassettes.Event, len(x.Response.Events))
		for i, ev := range x.Response.Events {
			c.Response.Events[i] = cassettes.Event{Data: bytes.Clone(ev.Data), After: ev.After}
		}
	}
	if x.Place != nil {
		p := *x.Place
		c.Place = &p
	}
	return &c
}

// passes asks Config.Passthrough about r, whose body was already read: the
// hook is given it again.
func (s *Server) passes(r *http.Request, body []byte) bool {
	if s.cfg.Passthrough == nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return s.cfg.Passthrough(r)
}

// passthroughTape is where a request Passthrough chose goes: forwarded,
// nothing kept, nothing replayed, whatever the mode.
func (s *Server) passthroughTape(name string) *tape {
	t := newTape(name, "", s.m, nil)
	t.role = role{recording: true}
	return t
}

// takeMatching is take under Config.Match: the first unused recording,
// in file order, of the same kind (tool or model traffic) that Match
// accepts for req.
func (s *Server) takeMatching(t *tape, req *cassettes.Request) (e *entry, usedUp int) {
	tool := req.Host != ""
	t.mu.Lock()
	defer t.mu.Unlock()
	t.touched = true
	var last *entry
	for _, c := range t.entries {
		if c.x.IsTool() != tool || c.x.IsLive() || !s.cfg.Match(req, &c.x.Request) {
			continue
		}
		if !c.used {
			c.used = true
			return c, 0
		}
		last = c
		usedUp++
	}
	if last != nil && s.cfg.AllowRepeats {
		return last, 0
	}
	return nil, usedUp
}

// verifyMatching answers a request Config.Match paired with no unused
// recording: unmatched, with how it differs from the closest recording.
func (s *Server) verifyMatching(w http.ResponseWriter, t *tape, req *cassettes.Request, usedUp int) {
	if usedUp > 0 {
		s.miss(w, matcher.OutcomeUnmatched, t.name, req, nil, nil, hinted(fmt.Sprintf(
			"cassette %q: all %d recorded answers Config.Match accepts for %s %s were already used",
			t.name, usedUp, req.Method, pathAndQuery(req)), "; ", s.cfg.Hints.UsedUp))
		return
	}
	s.miss(w, matcher.OutcomeUnmatched, t.name, req, nil, nil, "Config.Match accepts no recording: "+s.explainMiss(t, req))
}
