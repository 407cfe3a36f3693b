// A cassette read back as its conversations: sessions, invocations, steps.

package conversation

import (
	"cmp"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
)

// Session is one recorded conversation.
type Session struct {
	ID          int
	Invocations []Invocation
}

// Invocation is one user turn and the model calls made about it.
type Invocation struct {
	ID int
	// User is the user's text; Tag the client's X-Adkproxy-Invocation
	// header when it sent one.
	User string
	Tag  string
	// Steps are the invocation's model calls in file order (by every
	// agent, retries included); each has a Place.
	Steps []*cassettes.Exchange
	// HTTPCalls are the tool exchanges filed in the invocation, in file
	// order; each one's Place names the step it follows.
	HTTPCalls []*cassettes.Exchange
}

// Group reads a cassette as replay sees it: its sessions in id order, each
// with its invocations in id order, and the requests that are not model
// calls (other) in file order. Version 1 exchanges are placed first (see
// Organize), which fills in their Place. Each Live connection is a session
// of its own, after the HTTP sessions, its steps derived by LiveSteps.
func Group(c *cassettes.Cassette) (sessions []Session, other []*cassettes.Exchange) {
	Organize(matcher.Default(), c.Exchanges)
	type key struct{ session, invocation int }
	invocations := map[key]*Invocation{}
	var order []key
	for _, x := range withLiveSteps(c.Exchanges) {
		p := x.Place
		if p == nil {
			other = append(other, x)
			continue
		}
		k := key{p.Session, p.Invocation}
		inv := invocations[k]
		if inv == nil {
			inv = &Invocation{ID: p.Invocation, Tag: p.Tag}
			invocations[k] = inv
			order = append(order, k)
		}
		if inv.User == "" {
			inv.User = p.User
		}
		if x.IsTool() {
			inv.HTTPCalls = append(inv.HTTPCalls, x)
			continue
		}
		inv.Steps = append(inv.Steps, x)
	}
	slices.SortStableFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.session, b.session), cmp.Compare(a.invocation, b.invocation))
	})
	for _, k := range order {
		if len(sessions) == 0 || sessions[len(sessions)-1].ID != k.session {
			sessions = append(sessions, Session{ID: k.session})
		}
		s := &sessions[len(sessions)-1]
		s.Invocations = append(s.Invocations, *invocations[k])
	}
	return sessions, other
}
