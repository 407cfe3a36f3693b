package proxy

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// maxShownDiffs keeps a miss message to one screen.
const maxShownDiffs = 12

// replay answers from the cassette, or explains why it cannot.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, name string, req cassettes.Request) {
	t := s.replayTape(name)
	if t == nil {
		s.miss(w, name, req, fmt.Sprintf("cassette %q: there is no such cassette in %s (it has: %s); record it first with 'adkproxy record'",
			name, s.cfg.Dir, listOrNone(s.Cassettes())))
		return
	}
	fp := matcher.FingerprintOf(&req)
	x, usedUp := t.take(fp, s.cfg.AllowRepeats)
	if x == nil {
		s.miss(w, name, req, s.explainMiss(t, &req, usedUp))
		return
	}
	s.stats.replayed.Add(1)
	s.log.Debug("replayed", "cassette", name, "method", req.Method, "path", req.Path)
	s.serve(w, r, &x.Response)
}

func (s *Server) miss(w http.ResponseWriter, name string, req cassettes.Request, msg string) {
	s.addMiss(Miss{Cassette: name, Method: req.Method, Path: req.Path, Message: msg})
	s.log.Warn("unmatched request", "cassette", name, "method", req.Method, "path", req.Path, "detail", msg)
	writeError(w, http.StatusBadRequest, statusFailedPrecondition, msg)
}

// explainMiss names the cassette and shows how the request differs from
// the closest recording, so the user can tell a changed prompt from a
// changed tool result at a glance.
func (s *Server) explainMiss(t *tape, req *cassettes.Request, usedUp int) string {
	head := fmt.Sprintf("cassette %q: no recorded request matches %s %s", t.name, req.Method, pathAndQuery(req))
	if usedUp > 0 {
		return fmt.Sprintf("%s: all %d recorded answers to this exact request were already used; "+
			"pass --allow-repeats to keep serving the last one, or re-record with 'adkproxy record'", head, usedUp)
	}
	recorded := t.requests()
	i, diffs := matcher.Closest(recorded, req)
	if i < 0 {
		return head + ": the cassette is empty; re-record with 'adkproxy record'"
	}
	return fmt.Sprintf("%s.\nClosest recording (interaction %d, %s %s) differs in %d field(s):%s\nRe-record with 'adkproxy record' if the change is intended.",
		head, i+1, recorded[i].Method, pathAndQuery(recorded[i]), len(diffs), matcher.FormatDiffs(diffs, maxShownDiffs))
}

// serve writes a recorded response: same status, headers and bytes, SSE
// events flushed one at a time, and a broken connection where the
// recording had one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, resp *cassettes.Response) {
	h := w.Header()
	copyHeaders(h, resp.Header)
	ctx := r.Context()
	flusher, _ := w.(http.Flusher)
	if resp.Streamed() {
		w.WriteHeader(resp.Status)
		if flusher != nil {
			flusher.Flush()
		}
		for _, ev := range resp.Events {
			if s.cfg.ReplayTiming && s.cfg.Clock.Sleep(ctx, ev.After) != nil {
				return
			}
			if _, err := w.Write(ev.Data); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	} else {
		if s.cfg.ReplayTiming && s.cfg.Clock.Sleep(ctx, resp.Latency) != nil {
			return
		}
		if resp.End != cassettes.EndReset {
			h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
		}
		w.WriteHeader(resp.Status)
		w.Write(resp.Body)
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
