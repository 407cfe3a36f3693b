// Conformance matching (Config.ConformanceKeys, --match conformance): a model call is answered by
// the recording at its key, as ADK's ReplayPlugin keys it (user message,
// agent, that agent's call index in the user message), whatever its body
// says; how the body differs is reported as findings, not failures.

package proxy

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// keyedTape is a tape's state under Config.ConformanceKeys: the recordings by
// key, and the live calls placed so far, each agent's counted.
type keyedTape struct {
	org      *conversation.Organizer
	recorded map[keyedCall]*entry
	live     map[keyedAgent]int // calls so far of each agent in each recorded invocation
	count    map[keyedAgent]int // recordings of each agent in each invocation
	// answers are the recorded invocations whose user message only
	// answers a long-running tool (no user text): on the wire their calls
	// continue the previous invocation. skipped counts, per session, those
	// entered so far: recorded invocation = placed invocation + skipped.
	answers map[[2]int]bool
	skipped map[int]int
}

type keyedAgent struct {
	session, invocation int
	agent               string
}

type keyedCall struct {
	keyedAgent
	call int
}

// keyedLocked returns the tape's conformance state, indexing its recordings on
// first use: each agent's model calls of one invocation in file order.
// Callers hold t.mu.
func (t *tape) keyedLocked() *keyedTape {
	if t.keyed != nil {
		return t.keyed
	}
	k := &keyedTape{org: conversation.NewOrganizer(), recorded: map[keyedCall]*entry{},
		live: map[keyedAgent]int{}, count: map[keyedAgent]int{}, answers: map[[2]int]bool{}, skipped: map[int]int{}}
	texts := map[[2]int]bool{}
	for _, e := range t.entries {
		if p := e.x.Place; p != nil && !e.x.IsTool() {
			a := keyedAgent{p.Session, p.Invocation, p.Agent}
			k.recorded[keyedCall{a, k.count[a]}] = e
			k.count[a]++
			inv := [2]int{p.Session, p.Invocation}
			texts[inv] = texts[inv] || p.User != ""
			k.answers[inv] = !texts[inv]
		}
	}
	t.keyed = k
	return k
}

// replayKeyed answers a model call by its key; it returns false for a
// request that is not a model call, left to body matching.
func (s *Server) replayKeyed(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request) bool {
	call, ok := conversation.Analyze(s.m, req.Path, req.Body)
	if !ok {
		return false
	}
	t.mu.Lock()
	k := t.keyedLocked()
	t.mu.Unlock()
	place, token := k.org.Place(call, strings.TrimSpace(r.Header.Get(HeaderInvocation)))
	t.mu.Lock()
	t.touched = true
	a := keyedAgent{place.Session, place.Invocation + k.skipped[place.Session], place.Agent}
	next := keyedAgent{a.session, a.invocation + 1, a.agent}
	if k.live[a] >= k.count[a] && k.answers[[2]int{next.session, next.invocation}] && k.count[next] > 0 && answersTool(s.m, req.Body) {
		// The user message that answered a long-running tool: ADK makes it
		// an invocation of its own, the wire shows no new user turn.
		k.skipped[a.session]++
		a = next
	}
	n := k.live[a]
	k.live[a]++
	recorded := k.count[a]
	e := k.recorded[keyedCall{a, n}]
	if e != nil {
		e.used = true
	}
	t.mu.Unlock()
	key := matcher.ConformanceKey{UserMessage: a.invocation - 1, Agent: place.Agent, Call: n}
	if e == nil {
		k.org.Abandon(token)
		msg := hinted(fmt.Sprintf("cassette %q: nothing recorded at %s (session %d): the recording has %d model call(s) of agent %s in that user message",
			t.name, key, place.Session, recorded, place.Agent), "; ", s.cfg.hints.Rerecord)
		o := outcomeFor(matcher.OutcomeUnmatched, t.name, req, &place)
		o.Conformance, o.Message = &key, msg
		s.report.add(o)
		s.log.Warn(matcher.OutcomeUnmatched+" request", "cassette", t.name, "key", key.String(), "detail", msg)
		writeError(w, http.StatusBadRequest, statusFailedPrecondition, msg)
		return true
	}
	for _, payload := range cassettes.ResponsePayloads(&e.x.Response) {
		k.org.Calls(token, conversation.ResponseCalls(payload))
	}
	k.org.Finish(token, &e.x.Response)
	o := outcomeFor(matcher.OutcomeMatched, t.name, req, e.x.Place)
	o.Conformance = &key
	if diffs := s.m.Diff(&e.x.Request, req); len(diffs) > 0 {
		o.Findings = matcher.GroupDiffs(keptDiffs(diffs))
		s.log.Debug("served by conformance key; the body differs", "cassette", t.name, "key", key.String(), "differences", len(diffs))
	}
	s.report.add(o)
	s.serveRecorded(w, r, e.x)
	return true
}

// answersTool reports whether a request's newest content is a user turn
// made only of function responses: a client answering a long-running tool.
func answersTool(m *matcher.Matcher, body []byte) bool {
	v, ok := m.Parse(body)
	if !ok {
		return false
	}
	req, _ := v.(map[string]any)
	contents, _ := req["contents"].([]any)
	if len(contents) == 0 {
		return false
	}
	last, _ := contents[len(contents)-1].(map[string]any)
	if role, _ := last["role"].(string); role != "user" {
		return false
	}
	parts, _ := last["parts"].([]any)
	for _, p := range parts {
		if part, _ := p.(map[string]any); part["functionResponse"] == nil {
			return false
		}
	}
	return len(parts) > 0
}

// findingsLine is the summary's line about conformance findings, or "":
// how many calls answered by key differ, and in which groups.
func findingsLine(outcomes []matcher.Outcome) string {
	calls, by := 0, map[string]int{}
	for _, o := range outcomes {
		if len(o.Findings) > 0 {
			calls++
		}
		for _, f := range o.Findings {
			by[f.Group]++
		}
	}
	if calls == 0 {
		return ""
	}
	var groups []string
	for _, g := range matcher.FindingGroups {
		if by[g] > 0 {
			groups = append(groups, fmt.Sprintf("%s %d", g, by[g]))
		}
	}
	return fmt.Sprintf("  conformance findings: %d model call(s) answered by key differ from the recording (%s); see the report's findings\n",
		calls, strings.Join(groups, ", "))
}
