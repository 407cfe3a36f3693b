// Matching a report's unused outcomes with the recordings they name.

package prune

import (
	"fmt"
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// Plan is what pruning changes.
type Plan struct {
	// Changed are the cassettes that lose recordings, with those removed;
	// each keeps its File.
	Changed []*cassettes.Cassette
	// Removed describes each removed recording, one line each.
	Removed []string
	// Kept explains each unused outcome whose recording stays: not found
	// (already gone), ambiguous, or without a place.
	Kept []string
}

// placeKey is what identifies a recording in a report outcome.
type placeKey struct {
	cassette, method, path, user, agent string
	session, invocation, step           int
}

func keyOf(cassette string, x *cassettes.Exchange) (placeKey, bool) {
	p := x.Place
	if p == nil {
		return placeKey{}, false
	}
	return placeKey{cassette, x.Request.Method, x.Request.Path, p.User, p.Agent, p.Session, p.Invocation, p.Step}, true
}

// Unused works out which recordings of loaded (keyed by cassette name) the
// report's unused outcomes name, and returns the cassettes without them.
// loaded is not modified.
func Unused(loaded map[string]*cassettes.Cassette, r proxy.Report) Plan {
	var plan Plan
	want := map[placeKey]int{} // unused outcomes by place
	var order []placeKey
	for _, o := range r.Outcomes {
		if o.Outcome != matcher.OutcomeUnused {
			continue
		}
		if o.Session == 0 || o.Step == nil {
			plan.Kept = append(plan.Kept, fmt.Sprintf("cassette %s: %s %s has no place in the conversation; remove it by hand if it is not needed", cassettes.ShortName(o.Cassette), o.Method, o.Path))
			continue
		}
		k := placeKey{o.Cassette, o.Method, o.Path, o.User, o.Agent, o.Session, o.Invocation, *o.Step}
		if want[k] == 0 {
			order = append(order, k)
		}
		want[k]++
	}
	have := map[placeKey]int{}
	for name, c := range loaded {
		for _, x := range c.Exchanges {
			if k, ok := keyOf(name, x); ok {
				have[k]++
			}
		}
	}
	drop := map[placeKey]bool{}
	for _, k := range order {
		what := describe(k)
		switch n := have[k]; {
		case loaded[k.cassette] == nil || n == 0:
			plan.Kept = append(plan.Kept, what+": not in the cassettes (already gone?)")
		case n != want[k]:
			plan.Kept = append(plan.Kept, fmt.Sprintf("%s: %d recordings at this place, %d reported unused; cannot tell which, kept", what, n, want[k]))
		default:
			drop[k] = true
			plan.Removed = append(plan.Removed, what)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		c := loaded[name]
		kept := make([]*cassettes.Exchange, 0, len(c.Exchanges))
		for _, x := range c.Exchanges {
			if k, ok := keyOf(name, x); ok && drop[k] {
				continue
			}
			kept = append(kept, x)
		}
		if len(kept) != len(c.Exchanges) {
			pruned := *c
			pruned.Exchanges = kept
			plan.Changed = append(plan.Changed, &pruned)
		}
	}
	return plan
}

func describe(k placeKey) string {
	return fmt.Sprintf("cassette %s, session %d, invocation %d (%q), step %d, agent %s", cassettes.ShortName(k.cassette), k.session, k.invocation, k.user, k.step, k.agent)
}
