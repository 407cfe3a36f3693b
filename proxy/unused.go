// Why a recording went unused: the message that names it and blames the
// likeliest cause, a refused request of the same invocation or the agent.

package proxy

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// invocationKey names one invocation of one cassette.
type invocationKey struct {
	cassette            string
	session, invocation int
}

// refused lists the requests replay answered with a 400 of its own: by
// invocation when their place is known, and by cassette when it is not.
type refused struct {
	byInvocation map[invocationKey]matcher.Outcome // the first one
	unplaced     map[string]int
}

// refusals gathers the refused requests listed so far.
func (l *reportLog) refusals() refused {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := refused{byInvocation: map[invocationKey]matcher.Outcome{}, unplaced: map[string]int{}}
	for g := range l.all() {
		o := g.other
		if o == nil || o.Served || o.Outcome != matcher.OutcomeMismatched && o.Outcome != matcher.OutcomeUnmatched {
			continue
		}
		if o.Session == 0 {
			r.unplaced[o.Cassette]++
			continue
		}
		k := invocationKey{o.Cassette, o.Session, o.Invocation}
		if _, seen := r.byInvocation[k]; !seen {
			r.byInvocation[k] = *o
		}
	}
	return r
}

func unusedMessage(name string, e *entry, r refused) string {
	what := fmt.Sprintf("%s %s", e.x.Request.Method, e.x.Request.Path)
	cause := "the agent stopped early or skipped a step"
	if e.x.IsTool() {
		what = "the tool request " + e.x.Request.Method + " " + cassettes.HTTPCallOf(e.x).Target()
		cause = "the agent stopped early or skipped a tool call"
	}
	if n := r.unplaced[name]; n > 0 {
		cause = fmt.Sprintf("%d request(s) to this cassette were refused with HTTP 400 (unmatched), which may have stopped the agent", n)
	}
	if p := e.x.Place; p != nil {
		what = fmt.Sprintf("session %d, invocation %d (%q), step %d, agent %s", p.Session, p.Invocation, p.User, p.Step, p.Agent)
		if calls := wire.StepOf(e.x).ToolCalls; len(calls) > 0 {
			names := make([]string, len(calls))
			for i, c := range calls {
				names[i] = c.Name
			}
			what += ", which called " + strings.Join(names, ", ")
		}
		if o, ok := r.byInvocation[invocationKey{name, p.Session, p.Invocation}]; ok && o.Step != nil && *o.Step < p.Step {
			cause = fmt.Sprintf("an earlier request of this invocation (step %d) was refused with HTTP 400 (%s), so the agent did not go on; fix that one first", *o.Step, o.Outcome)
		}
	}
	return fmt.Sprintf("cassette %q: the recording of %s was never requested: %s", name, what, cause)
}
