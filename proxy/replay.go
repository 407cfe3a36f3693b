// Replay's answers: a recorded response served as it was recorded, and a
// request with no recording compared with the one at its place, then
// refused (strict) or served (lenient) with the differences.

package proxy

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// maxShownDiffs keeps a miss message to one screen.
const maxShownDiffs = 12

// keptDiffs copies the first maxKeptDiffs, so the rest can be collected.
func keptDiffs(diffs []matcher.Difference) []matcher.Difference {
	return slices.Clone(diffs[:min(len(diffs), maxKeptDiffs)])
}

// maxKeptDiffs bounds the differences a report keeps for one request: a
// request with a million added fields would otherwise keep them all for
// the whole run. The message still counts them all.
const maxKeptDiffs = 100

// verify handles a request with no recording of its own. If something was
// recorded at its place in the conversation, the request is compared with
// that (argument verification): strict mode answers with the differences,
// lenient mode serves the recording and reports them.
func (s *Server) verify(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request, usedUp int) {
	if usedUp > 0 {
		s.miss(w, matcher.OutcomeUnmatched, t.name, req, nil, nil, hinted(fmt.Sprintf(
			"cassette %q: all %d recorded answers to %s %s were already used",
			t.name, usedUp, req.Method, pathAndQuery(req)), "; ", s.cfg.Hints.UsedUp))
		return
	}
	var e *entry
	if call, ok := conversation.Analyze(s.m, req.Path, req.Body); ok {
		e = t.position(call)
		if e == nil {
			e = t.tagged(strings.TrimSpace(r.Header.Get(HeaderInvocation)), call.Step)
		}
	}
	if e == nil {
		s.miss(w, matcher.OutcomeUnmatched, t.name, req, nil, nil, s.explainMiss(t, req))
		return
	}
	diffs := s.m.Diff(&e.x.Request, req)
	hint := s.cfg.Hints.Mismatch
	if why := missingVersion(req.Path); why != "" {
		hint = strings.TrimSpace(why + ". " + hint)
	}
	s.differs(w, r, t, e, req, diffs, hinted(fmt.Sprintf("%s: request differs from the recording:%s",
		describePlace(t.name, e.x.Place), matcher.FormatDiffs(diffs, maxShownDiffs)), "\n", hint))
}

// differs answers a request that differs from the recording e at its
// place: strict mode with the differences (a miss), lenient mode with the
// recording, the differences reported.
func (s *Server) differs(w http.ResponseWriter, r *http.Request, t *tape, e *entry, req *cassettes.Request, diffs []matcher.Difference, msg string) {
	if !t.strict {
		t.markUsed(e)
		o := outcomeFor(matcher.OutcomeMismatched, t.name, req, e.x.Place)
		o.Served, o.Diffs, o.Message = true, keptDiffs(diffs), msg
		s.report.add(o)
		s.log.Warn("request differs from the recording; served the recording (lenient)", "cassette", t.name, "detail", msg)
		t.answered(e)
		s.serveRecorded(w, r, e)
		return
	}
	t.markContested(e)
	s.miss(w, matcher.OutcomeMismatched, t.name, req, e.x.Place, diffs, msg)
}

// replayed answers a request with the recording e, which matched it.
func (s *Server) replayed(w http.ResponseWriter, r *http.Request, name string, e *entry, body []byte) {
	s.report.matched(name, e.x)
	if s.log.Enabled(r.Context(), slog.LevelDebug) { // spares every request boxing the attributes
		s.log.Debug("replayed", "cassette", name, "method", e.x.Request.Method, "path", e.x.Request.Path, "host", e.x.Request.Host)
	}
	s.serveRecorded(w, r, e)
	releaseBody(body) // answered from the recording: nothing keeps the request
}

// describePlace names a recording the way every message does.
func describePlace(cassette string, p *cassettes.Place) string {
	if p == nil {
		return fmt.Sprintf("cassette %q", cassette)
	}
	return fmt.Sprintf("cassette %q, session %d, invocation %d (%q), step %d, agent %s",
		cassette, p.Session, p.Invocation, p.User, p.Step, p.Agent)
}

func (s *Server) miss(w http.ResponseWriter, kind matcher.OutcomeKind, name string, req *cassettes.Request, p *cassettes.Place, diffs []matcher.Difference, msg string) {
	o := outcomeFor(kind, name, req, p)
	o.Diffs, o.Message = keptDiffs(diffs), msg
	s.report.add(o)
	s.log.Warn(string(kind)+" request", "cassette", name, "method", req.Method, "path", req.Path, "detail", msg)
	writeError(w, http.StatusBadRequest, statusFailedPrecondition, msg)
}

// explainMiss shows how the request differs from the closest recording.
func (s *Server) explainMiss(t *tape, req *cassettes.Request) string {
	head := fmt.Sprintf("cassette %q: no recorded request matches %s %s", t.name, req.Method, pathAndQuery(req))
	if why := missingVersion(req.Path); why != "" {
		head += "; " + why
	}
	if msg, ok := t.explainUpload(req); ok {
		return hinted(head+": "+msg, "\n", s.cfg.Hints.Rerecord)
	}
	recorded := t.requests()
	i, diffs := s.m.Closest(recorded, req)
	if i < 0 {
		return hinted(head+": the cassette is empty", "; ", s.cfg.Hints.Record)
	}
	return hinted(fmt.Sprintf("%s.\nClosest recording (interaction %d, %s %s) differs in %d field(s):%s",
		head, i+1, recorded[i].Method, pathAndQuery(recorded[i]), len(diffs), matcher.FormatDiffs(diffs, maxShownDiffs)), "\n", s.cfg.Hints.Rerecord)
}

// serve writes a recorded response: same status, headers and bytes, and a
// broken connection where the recording had one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, resp *cassettes.Response) {
	s.serveAnswer(w, r, resp, newAnswerHead(resp))
}

// serveAnswer is serve with resp's header block worked out already. A
// stream goes out as fast as the connection takes it: with nothing to wait
// for, flushing each event on its own would only add writes, and the
// client reads the same bytes. With ReplayTiming each event is flushed,
// then the next one waited for.
func (s *Server) serveAnswer(w http.ResponseWriter, r *http.Request, resp *cassettes.Response, head *answerHead) {
	head.set(w.Header(), r)
	ctx := r.Context()
	flusher, _ := w.(http.Flusher)
	if resp.Streamed() {
		w.WriteHeader(resp.Status)
		for _, ev := range resp.Events {
			if s.cfg.ReplayTiming {
				if flusher != nil {
					flusher.Flush()
				}
				if s.cfg.Clock.Sleep(ctx, ev.After) != nil {
					return
				}
			}
			if _, err := w.Write(ev.Data); err != nil {
				return
			}
		}
	} else {
		if s.cfg.ReplayTiming && s.cfg.Clock.Sleep(ctx, resp.Latency) != nil {
			return
		}
		armed := s.armWriteDeadline(w)
		w.WriteHeader(resp.Status)
		w.Write(resp.Body)
		if armed {
			liftWriteDeadline(w)
		}
	}
	if resp.End == cassettes.EndReset {
		if flusher != nil {
			flusher.Flush()
		}
		panic(http.ErrAbortHandler)
	}
}

func pathAndQuery(req *cassettes.Request) string {
	if req.Query == "" {
		return req.Path
	}
	return req.Path + "?" + req.Query
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "no cassettes"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, ", ")
}
