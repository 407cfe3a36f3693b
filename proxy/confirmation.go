// Tool confirmations (POST /_adkproxy/confirmation): a client that answers
// ADK's tool confirmation requests reports its answer here, because ADK
// never sends the request nor the answer to the model. The answer waits
// for the cassette's next model call whose request carries a result of
// that tool (the re-executed tool's, or ADK's refusal) and is recorded on
// that step, in the invocation that made the call.

package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// confirmationQueue holds reported answers by cassette name until a model
// call carries their tool's result.
type confirmationQueue struct {
	mu      sync.Mutex
	pending map[string][]cassettes.Confirmation
}

func (q *confirmationQueue) add(cassette string, c cassettes.Confirmation) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending == nil {
		q.pending = map[string][]cassettes.Confirmation{}
	}
	q.pending[cassette] = append(q.pending[cassette], c)
}

// take removes and returns the oldest waiting answer for each of results'
// tools, one per result, in the results' order.
func (q *confirmationQueue) take(cassette string, results []cassettes.ToolResult) []cassettes.Confirmation {
	q.mu.Lock()
	defer q.mu.Unlock()
	waiting := q.pending[cassette]
	var out []cassettes.Confirmation
	for _, r := range results {
		for i, c := range waiting {
			if c.Tool == r.Name {
				out = append(out, c)
				waiting = append(waiting[:i:i], waiting[i+1:]...)
				break
			}
		}
	}
	if len(waiting) == 0 {
		delete(q.pending, cassette)
	} else {
		q.pending[cassette] = waiting
	}
	return out
}

// waiting says whether any answer waits for cassette (cheap: most model
// calls are not parsed for tool results).
func (q *confirmationQueue) waiting(cassette string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending[cassette]) > 0
}

// left are the answers no model call carried a result for.
func (q *confirmationQueue) left() map[string][]cassettes.Confirmation {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending
}

// fileConfirmations puts the answers waiting for t's cassette on x, a
// model call being recorded, when its request carries their tools'
// results.
func (s *Server) fileConfirmations(t *tape, x *cassettes.Exchange) {
	if x.Place == nil || x.IsTool() || x.IsLive() || !s.confirmations.waiting(t.name) {
		return
	}
	if got := s.confirmations.take(t.name, wire.StepOf(x).ToolResults); len(got) > 0 {
		x.Confirmations = append(x.Confirmations, got...)
	}
}

// warnUnfiledConfirmations logs the answers that were reported but filed
// on no step: no model call after them carried their tool's result.
func (s *Server) warnUnfiledConfirmations() {
	for cassette, cs := range s.confirmations.left() {
		for _, c := range cs {
			s.log.Warn("tool confirmation not recorded nor verified: no model call after it carried a result of its tool",
				"cassette", cassette, "tool", c.Tool, "decision", c.Decision())
		}
	}
}

// confirmationBody is the JSON a client posts: the answer, with confirmed
// required.
type confirmationBody struct {
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args"`
	Confirmed *bool          `json:"confirmed"`
	Payload   any            `json:"payload"`
	Hint      string         `json:"hint"`
	Shape     string         `json:"shape"`
}

const confirmationExample = `{"tool": "book_room", "args": {"city": "Paris"}, "confirmed": true, "shape": "object"}`

// serveConfirmation queues a reported answer for the request's cassette
// (X-Adkproxy-Cassette, else the default one): recording files it on a
// step, replay verifies it against the recorded one and keeps nothing.
func (s *Server) serveConfirmation(w http.ResponseWriter, r *http.Request) {
	var body confirmationBody
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxControlBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&body)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = fmt.Errorf("the body has more after the object")
	}
	if err == nil && body.Confirmed == nil {
		err = fmt.Errorf(`it has no "confirmed" (true or false)`)
	}
	c := cassettes.Confirmation{Tool: body.Tool, Args: body.Args, Payload: body.Payload, Hint: body.Hint, Shape: body.Shape}
	if err == nil {
		c.Confirmed = *body.Confirmed
		err = c.Check()
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, statusInvalidArgument,
			fmt.Sprintf("POST %s wants one JSON object such as %s: %v", proxyopt.ControlConfirmation, confirmationExample, err))
		return
	}
	name := s.cassetteOf(r)
	if _, err := s.pathFor(name); err != nil {
		writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf("bad cassette name in %s header: %v", HeaderCassette, err))
		return
	}
	s.confirmations.add(name, c)
	s.log.Debug("tool confirmation queued", "cassette", name, "tool", c.Tool, "decision", c.Decision(), "shape", c.Shape)
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "cassette": name, "recorded": s.cfg.Mode != ModeReplay})
}

// confirmationDiffers verifies the answers reported for a replayed model
// call against those recorded on it, as a request field is verified: a
// different decision, arguments or payload is a difference (strict replay
// answers with it, lenient replay serves the recording and reports it).
// Only answers present on both sides are compared: a recording made
// without reports, or a client that reports none, verifies as before; the
// shape and the hint are not compared (ADK reads both shapes alike, and
// the hint is ADK's text). It says whether it answered.
func (s *Server) confirmationDiffers(w http.ResponseWriter, r *http.Request, t *tape, e *entry) bool {
	x := e.x
	if x.Place == nil || x.IsTool() || !s.confirmations.waiting(t.name) {
		return false
	}
	reported := s.confirmations.take(t.name, wire.StepOf(x).ToolResults)
	var diffs []matcher.Difference
	used := make([]bool, len(reported))
	for _, rec := range x.Confirmations {
		for i, got := range reported {
			if used[i] || got.Tool != rec.Tool {
				continue
			}
			used[i] = true
			path := "confirmation(" + rec.Tool + ")"
			if rec.Confirmed != got.Confirmed {
				diffs = append(diffs, matcher.Difference{Path: path + ".decision", Kind: matcher.Changed, Recorded: rec.Decision(), Got: got.Decision()})
			}
			diffs = append(diffs, matcher.DiffJSON(path+".args", jsonOf(rec.Args), jsonOf(got.Args))...)
			diffs = append(diffs, matcher.DiffJSON(path+".payload", jsonOf(rec.Payload), jsonOf(got.Payload))...)
			break
		}
	}
	if len(diffs) == 0 {
		return false
	}
	s.differs(w, r, t, e, &x.Request, diffs, hinted(fmt.Sprintf("%s: the reported tool confirmation differs from the recording:%s",
		describePlace(t.name, x.Place), matcher.FormatDiffs(diffs, maxShownDiffs)), "\n", s.cfg.Hints.Mismatch))
	return true
}

// jsonOf is v as the matcher reads JSON (exact numbers), or nil.
func jsonOf(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, _ := matcher.ParseJSON(b)
	return out
}
