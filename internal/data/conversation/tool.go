// Filing tool exchanges: which step's function call an agent's tool was
// serving when it called another host.

package conversation

import "github.com/adkproxy/adkproxy/cassettes"

// toolFiling follows the steps whose answers made function calls that
// their agent has not answered yet. A call is answered when the same agent
// (same per-agent key) takes a later step: that request carries the
// function responses. Callers hold the Organizer's lock.
type toolFiling struct {
	open []openStep                         // oldest first
	last map[*orgInvocation]cassettes.Place // latest step placed in each invocation
}

type openStep struct {
	inv   *orgInvocation
	key   string
	step  int
	place cassettes.Place
}

// placed notes a step as it is placed: it answers its agent's earlier
// steps in any invocation.
func (f *toolFiling) placed(inv *orgInvocation, c *Call, p cassettes.Place) {
	if f.last == nil {
		f.last = map[*orgInvocation]cassettes.Place{}
	}
	f.last[inv] = p
	kept := f.open[:0]
	for _, s := range f.open {
		if s.key != c.Key || s.step >= c.Step {
			kept = append(kept, s)
		}
	}
	f.open = kept
}

// called notes that a placed step's answer made function calls.
func (f *toolFiling) called(inv *orgInvocation, c *Call, p cassettes.Place) {
	for _, s := range f.open {
		if s.inv == inv && s.key == c.Key && s.step == c.Step {
			return // a stream names its calls across events
		}
	}
	f.open = append(f.open, openStep{inv: inv, key: c.Key, step: c.Step, place: p})
}

// FileTool says where a tool exchange belongs:
//
//  1. tag (the tool request's X-Adkproxy-Invocation header) names an
//     invocation: its latest step with unanswered function calls, else its
//     latest step;
//  2. otherwise the step that most recently answered with a function call
//     its agent has not answered yet, in any session;
//  3. otherwise nowhere (ok is false): the exchange goes under other.
//
// Rule 2 cannot tell parallel sessions apart when their calls overlap;
// tools that run in parallel sessions send the header.
func (o *Organizer) FileTool(tag string) (place cassettes.Place, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f := &o.tools
	if inv := o.tagged[tag]; tag != "" && inv != nil {
		for i := len(f.open) - 1; i >= 0; i-- {
			if f.open[i].inv == inv {
				return f.open[i].place, true
			}
		}
		if p, ok := f.last[inv]; ok {
			return p, true
		}
	}
	if n := len(f.open); n > 0 {
		return f.open[n-1].place, true
	}
	return cassettes.Place{}, false
}
