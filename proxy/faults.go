// Fault injection in replay (Config.Faults, PUT /_adkproxy/faults): a
// chosen request gets an error, a cut stream or a blocked answer instead
// of its recording. A fault consumes nothing, so a client that retries
// gets the recording next; the report says whether it did (recovered).

package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"github.com/adkproxy/adkproxy/matcher"
)

// faultInjector holds the armed faults and what they did.
type faultInjector struct {
	// any is whether faults are armed: read by every request, so without
	// the lock.
	any    atomic.Bool
	mu     sync.Mutex
	armed  []*armedFault
	calls  int // model calls since the faults were set
	events []*firedFault
}

type armedFault struct {
	f     fault.Fault
	fired bool
}

type firedFault struct {
	spec   string
	call   int
	o      matcher.Outcome // where: cassette, request and place
	tape   *tape
	target *entry // the recording it stood in for, if any
}

func parseFaults(specs []string) ([]*armedFault, error) {
	var out []*armedFault
	for _, s := range specs {
		f, err := fault.Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, &armedFault{f: f})
	}
	return out, nil
}

// SetFaults replaces the faults injected from now on (specs as Config.Faults
// takes them); model calls are counted from 1 again. Faults already
// injected stay in the report.
func (s *Server) SetFaults(specs []string) error {
	armed, err := parseFaults(specs)
	if err != nil {
		return err
	}
	in := &s.faults
	in.mu.Lock()
	defer in.mu.Unlock()
	in.noteUnfired()
	in.arm(armed)
	in.calls = 0
	return nil
}

// noteUnfired keeps faults that never fired in the report; callers hold mu.
func (in *faultInjector) noteUnfired() {
	for _, a := range in.armed {
		if !a.fired && a.f.Where.Kind != fault.EveryCall {
			in.events = append(in.events, &firedFault{spec: a.f.Spec, call: -1})
		}
	}
}

// arm sets the armed faults; callers hold mu or own in.
func (in *faultInjector) arm(armed []*armedFault) {
	in.armed = armed
	in.any.Store(len(armed) > 0)
}

func (in *faultInjector) active() bool { return in.any.Load() }

// pick numbers the request among the run's model calls when it is one
// (modelCall), and returns the fault that hits it, marking it fired.
func (in *faultInjector) pick(r fault.Request, modelCall bool) (fault.Fault, int, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if modelCall {
		in.calls++
		r.ModelCall = in.calls
	}
	for _, a := range in.armed {
		if !a.fired && a.f.Hits(r) {
			a.fired = a.f.Where.Kind != fault.EveryCall
			return a.f, r.ModelCall, true
		}
	}
	return fault.Fault{}, r.ModelCall, false
}

func (in *faultInjector) fired(ev *firedFault) {
	in.mu.Lock()
	in.events = append(in.events, ev)
	in.mu.Unlock()
}

// outcomes lists every fault injected, then those never reached.
func (in *faultInjector) outcomes() []FaultOutcome {
	in.mu.Lock()
	events := append([]*firedFault(nil), in.events...)
	var waiting []string
	for _, a := range in.armed {
		if !a.fired && a.f.Where.Kind != fault.EveryCall {
			waiting = append(waiting, a.f.Spec)
		}
	}
	in.mu.Unlock()
	var out []FaultOutcome
	for _, ev := range events {
		if ev.call < 0 {
			out = append(out, FaultOutcome{Fault: ev.spec})
			continue
		}
		o := ev.o
		fo := FaultOutcome{Fault: ev.spec, Injected: true, Call: ev.call, Cassette: o.Cassette, Host: o.Host,
			Method: o.Method, Path: o.Path, Session: o.Session, Invocation: o.Invocation, Step: o.Step, User: o.User, Agent: o.Agent}
		if ev.target != nil {
			ev.tape.mu.Lock()
			fo.Recovered = ev.target.used
			ev.tape.mu.Unlock()
		}
		out = append(out, fo)
	}
	for _, spec := range waiting {
		out = append(out, FaultOutcome{Fault: spec})
	}
	return out
}

// peek returns the recording take would hand out for fp, without taking it.
func (t *tape) peek(queues map[matcher.Fingerprint][]*entry, fp matcher.Fingerprint) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return firstUnused(queues[fp], nil)
}

func (t *tape) touch() {
	t.mu.Lock()
	t.touched = true
	t.mu.Unlock()
}

// pickFault returns the fault that hits req, if one does, and notes it
// injected. e is the recording the request would get (from peek), the one
// the fault stands in for; modelCall counts req among the model calls.
func (s *Server) pickFault(t *tape, req *cassettes.Request, e *entry, kind fault.Request, modelCall bool) (fault.Fault, bool) {
	var p *cassettes.Place
	if e != nil {
		p = e.x.Place
	}
	kind.Place, kind.Cassette = p, t.name
	f, call, ok := s.faults.pick(kind, modelCall)
	if !ok {
		return f, false
	}
	s.faults.fired(&firedFault{spec: f.Spec, call: call, o: outcomeFor("fault", t.name, req, p), tape: t, target: e})
	t.touch() // its recordings left unused are reported as such
	s.log.Warn("fault injected", "fault", f.Spec, "cassette", t.name, "method", req.Method, "path", req.Path, "call", call)
	return f, true
}

// injectFault answers r with a fault when one hits it, and reports whether
// it did (false: serve r as usual). A delay holds r back and then lets it
// through. queues and fp are where r's recording would be found.
func (s *Server) injectFault(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request, queues map[matcher.Fingerprint][]*entry, fp matcher.Fingerprint, kind fault.Request, modelCall bool) bool {
	e := t.peek(queues, fp)
	f, ok := s.pickFault(t, req, e, kind, modelCall)
	if !ok {
		return false
	}
	var answer *cassettes.Response
	if e != nil {
		answer = &e.x.Response
	}
	if f.What.Kind == fault.Delay {
		return s.cfg.Clock.Sleep(r.Context(), f.What.Duration) != nil // the client gave up: nothing more to answer
	}
	fault.Write(w, r, f.What, answer)
	return true
}

// modelFault is injectFault for a request to the Gemini API.
func (s *Server) modelFault(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request) bool {
	return s.injectFault(w, r, t, req, t.queues, t.fingerprint(req), fault.Request{}, conversation.IsModelCall(req.Path))
}

// toolFault is injectFault for a request to a tool host.
func (s *Server) toolFault(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request) bool {
	return s.injectFault(w, r, t, req, t.tools, t.toolKey(req), fault.Request{Tool: true, Host: req.Host, Path: req.Path}, false)
}

// liveFault picks the fault for a Live connection, if one hits it: a
// status, reset or delay acts on the upgrade (done: the connection was
// answered), a Live fault is returned for the player.
func (s *Server) liveFault(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request) (live *fault.What, done bool) {
	f, ok := s.pickFault(t, req, t.peek(t.lives, liveKey(t.m, req)), fault.Request{Live: true}, true)
	if !ok {
		return nil, false
	}
	switch {
	case f.What.Live():
		return &f.What, false
	case f.What.Kind == fault.Delay:
		return nil, s.cfg.Clock.Sleep(r.Context(), f.What.Duration) != nil
	}
	fault.Write(w, r, f.What, nil)
	return nil, true
}

// serveFaults answers GET and PUT on proxyopt.ControlFaults.
func (s *Server) serveFaults(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, map[string]any{"faults": s.armedSpecs(), "injected": s.faults.outcomes()})
		return
	}
	var body struct {
		Faults *[]string `json:"faults"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxControlBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&body)
	if err == nil && body.Faults == nil {
		err = fmt.Errorf(`it has no "faults" list`)
	}
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = fmt.Errorf("the body has more after the JSON object")
	}
	if err == nil {
		err = s.SetFaults(*body.Faults)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, statusInvalidArgument,
			fmt.Sprintf(`PUT %s wants a JSON body {"faults": ["call 1: 429"]} (an empty list removes them): %v`, proxyopt.ControlFaults, err))
		return
	}
	s.log.Debug("faults set", "faults", strings.Join(*body.Faults, "; "))
	writeJSON(w, http.StatusOK, map[string]any{"faults": s.armedSpecs()})
}

func (s *Server) armedSpecs() []string {
	in := &s.faults
	in.mu.Lock()
	defer in.mu.Unlock()
	out := []string{}
	for _, a := range in.armed {
		out = append(out, a.f.Spec)
	}
	return out
}

// faultLines are the summary's lines about faults, one each.
func faultLines(faults []FaultOutcome) string {
	var b strings.Builder
	for _, f := range faults {
		if !f.Injected {
			fmt.Fprintf(&b, "  fault %q: never injected (no request reached it)\n", f.Fault)
			continue
		}
		at := f.Method + " " + f.Path
		if f.Host != "" {
			at = f.Method + " " + f.Host + f.Path
		}
		where := fmt.Sprintf("cassette %q", f.Cassette)
		if f.Step != nil {
			where = describePlace(f.Cassette, &cassettes.Place{Session: f.Session, Invocation: f.Invocation, User: f.User, Step: *f.Step, Agent: f.Agent})
		}
		if f.Call > 0 {
			where = fmt.Sprintf("model call %d, %s", f.Call, where)
		}
		outcome := "the agent did not recover (no later request got the recording)"
		if f.Recovered {
			outcome = "recovered (a later request got the recording)"
		}
		fmt.Fprintf(&b, "  fault %q injected at %s (%s): %s\n", f.Fault, at, where, outcome)
	}
	return b.String()
}
