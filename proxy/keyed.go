// Conformance matching (Config.ConformanceKeys, --match conformance): a model call is answered by
// the recording at its key, as ADK's ReplayPlugin keys it (user message,
// agent, that agent's call index in the user message), whatever its body
// says; how the body differs is reported as findings, not failures.

package proxy

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
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
	// order holds parallel branches to the recorded order (keyed_order.go);
	// results are each recorded invocation's tool results, which answer an
	// agent used as a tool (keyed_agenttool.go).
	order   recordedOrder
	results map[[2]int]toolResults
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
		live: map[keyedAgent]int{}, count: map[keyedAgent]int{}, answers: map[[2]int]bool{}, skipped: map[int]int{},
		order: newRecordedOrder(), results: map[[2]int]toolResults{}}
	texts := map[[2]int]bool{}
	for _, e := range t.entries {
		if p := e.x.Place; p != nil && !e.x.IsTool() {
			a := keyedAgent{p.Session, p.Invocation, p.Agent}
			k.recorded[keyedCall{a, k.count[a]}] = e
			k.count[a]++
			inv := [2]int{p.Session, p.Invocation}
			texts[inv] = texts[inv] || p.User != ""
			k.answers[inv] = !texts[inv]
			k.order.add(inv, e)
			if k.results[inv] == nil {
				k.results[inv] = toolResults{}
			}
			k.results[inv].addRequest(e.x.Request.Body)
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
	if k.live[a] >= k.count[a] && k.answers[[2]int{next.session, next.invocation}] && k.count[next] > 0 && call.AnswersTool {
		// The user message that answered a long-running tool: ADK makes it
		// an invocation of its own, the wire shows no new user turn.
		k.skipped[a.session]++
		a = next
	}
	n := k.live[a]
	k.live[a]++
	recorded := k.count[a]
	e := k.recorded[keyedCall{a, n}]
	var before *answerState
	if e != nil {
		e.used = true
		before = k.order.waitFor(e, req.Body)
	}
	asTool, isAgentTool := k.results[[2]int{a.session, a.invocation}].agentToolAnswer(call, place.Agent, req.Path)
	t.mu.Unlock()
	key := matcher.ConformanceKey{UserMessage: a.invocation - 1, Agent: place.Agent, Call: n}
	if e == nil && recorded == 0 && isAgentTool {
		// ADK records an agent used as a tool by the tool's result only.
		for _, payload := range wire.Payloads(asTool) {
			k.org.Calls(token, conversation.ResponseCalls(payload))
		}
		o := outcomeFor(matcher.OutcomeMatched, t.name, req, &place)
		o.Conformance = &key
		o.Message = "answered with the recorded result of tool " + place.Agent + ": ADK records an agent used as a tool by its result, not its model calls"
		s.report.add(o)
		s.serve(w, r, asTool)
		return true
	}
	if e == nil {
		k.org.Abandon(token)
		msg := hinted(fmt.Sprintf("cassette %q: nothing recorded at %s (session %d): the recording has %d model call(s) of agent %s in that user message",
			t.name, key, place.Session, recorded, place.Agent), "; ", s.cfg.Hints.Rerecord)
		o := outcomeFor(matcher.OutcomeUnmatched, t.name, req, &place)
		o.Conformance, o.Message = &key, msg
		s.report.add(o)
		s.log.Warn(string(matcher.OutcomeUnmatched)+" request", "cassette", t.name, "key", key.String(), "detail", msg)
		writeError(w, http.StatusBadRequest, statusFailedPrecondition, msg)
		return true
	}
	for _, payload := range wire.Payloads(&e.x.Response) {
		k.org.Calls(token, conversation.ResponseCalls(payload))
	}
	k.org.Finish(token, &e.x.Response)
	o := outcomeFor(matcher.OutcomeMatched, t.name, req, e.x.Place)
	o.Conformance = &key
	if diffs := substantive(s.m.Diff(&e.x.Request, req)); len(diffs) > 0 {
		o.Findings = matcher.GroupDiffs(keptDiffs(diffs))
		s.log.Debug("served by conformance key; the body differs", "cassette", t.name, "key", key.String(), "differences", len(diffs))
	}
	// Reported once answered, so parallel branches are listed in the
	// recorded order, not in the order they raced in.
	if before.pending() {
		s.log.Debug("holding a call until the one recorded before it is answered", "cassette", t.name, "key", key.String())
	}
	hold(r, before)
	s.report.add(o)
	s.serveRecorded(w, r, e)
	t.mu.Lock()
	k.order.done(e)
	t.mu.Unlock()
	return true
}

// substantive leaves out differences that only add or remove an empty
// object or list (generationConfig: {} where ADK Python sends none): ADK's
// own request comparison counts empty as absent.
func substantive(diffs []matcher.Difference) []matcher.Difference {
	return slices.DeleteFunc(diffs, func(d matcher.Difference) bool {
		v := d.Got
		if d.Kind == matcher.Removed {
			v = d.Recorded
		}
		return (d.Kind == matcher.Added || d.Kind == matcher.Removed) && (v == "{}" || v == "[]")
	})
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
