// Reading cassettes into the model: sessions and invocations by id, steps
// and tool exchanges in file order, the rest as other.

package recorded

import (
	"cmp"
	"iter"
	"maps"
	"path/filepath"
	"slices"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// Build reads loaded cassettes (as cassettes.LoadDir returns them from
// dir) into a run, sorted by cassette name. Version 1 exchanges are placed
// as replay would place them, which fills in their Place.
func Build(dir string, loaded map[string]*cassettes.Cassette) Run {
	run := Run{Cassettes: make([]Cassette, 0, len(loaded))}
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		run.Cassettes = append(run.Cassettes, CassetteOf(name, fileOf(dir, loaded[name]), loaded[name]))
	}
	return run
}

// fileOf is c's file relative to dir, with "/" separators.
func fileOf(dir string, c *cassettes.Cassette) string {
	file, err := filepath.Rel(dir, c.File)
	if err != nil {
		file = c.File
	}
	return filepath.ToSlash(file)
}

// Stream reads loaded cassettes as Build does, in Build's order, for a
// reader that looks at each invocation once (ls's table): each cassette
// is handed to each without its sessions, and invocations yields them in
// the order of Build's sessions, each with the id of its session, made
// as it is asked for and kept by no one else. Stream consumes loaded: a
// cassette's exchanges are let go of as its invocations are read, so the
// memory held is the cassettes not read yet, not the cassettes and a
// model of them all (issue 39 item 12). Each Other exchange stays.
func Stream(dir string, loaded map[string]*cassettes.Cassette, each func(c *Cassette, invocations iter.Seq2[int, *Invocation])) {
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		c := loaded[name]
		delete(loaded, name)
		out, plan := planOf(name, fileOf(dir, c), c)
		c.Exchanges = nil // the plan holds them now, and lets each go once read
		each(&out, plan.invocations(true))
	}
}

// CassetteOf reads one cassette as replay sees it: its sessions in id
// order, each with its invocations in id order, steps and tool exchanges
// in file order, and the requests that are not model calls (Other) in file
// order; an HTTP+SSE stream of MCP is one of Other, its answers read as
// those of the POSTs they answer (wire.MCPStreamAnswers). Version 1 exchanges are placed first (see conversation.Organize),
// which fills in their Place. Each Live connection is a session of its
// own, after the HTTP sessions, its steps derived by
// wire.LiveSteps.
func CassetteOf(name, file string, c *cassettes.Cassette) Cassette {
	out, plan := planOf(name, file, c)
	for session, inv := range plan.invocations(false) {
		if len(out.Sessions) == 0 || out.Sessions[len(out.Sessions)-1].ID != session {
			out.Sessions = append(out.Sessions, Session{ID: session})
		}
		s := &out.Sessions[len(out.Sessions)-1]
		s.Invocations = append(s.Invocations, *inv)
	}
	return out
}

// plan is where a cassette's exchanges go: its invocations in the order
// of the model, each with its steps and tool exchanges.
type plan struct {
	placed   []*placed
	streamed map[*cassettes.Exchange]wire.MCPCall
}

// placed is one invocation's exchanges, in file order.
type placed struct {
	session, id  int
	user, tag    string
	steps, tools []*cassettes.Exchange
}

// planOf files c's exchanges: the cassette without its sessions, and the
// plan of its invocations.
func planOf(name, file string, c *cassettes.Cassette) (Cassette, *plan) {
	conversation.Organize(matcher.Default(), c.Exchanges)
	out := Cassette{Name: name, File: file, Provenance: c.Provenance}
	type key struct{ session, invocation int }
	invocations := map[key]*placed{}
	p := &plan{streamed: wire.MCPStreamAnswers(c.Exchanges)}
	for _, x := range wire.WithLiveSteps(c.Exchanges) {
		at := x.Place
		if _, stream := wire.MCPStreamServer(x); at == nil || stream {
			out.Other = append(out.Other, x)
			continue
		}
		k := key{at.Session, at.Invocation}
		inv := invocations[k]
		if inv == nil {
			inv = &placed{session: at.Session, id: at.Invocation, tag: at.Tag}
			invocations[k] = inv
			p.placed = append(p.placed, inv)
		}
		if inv.user == "" {
			inv.user = at.User
		}
		if x.IsTool() {
			inv.tools = append(inv.tools, x)
		} else {
			inv.steps = append(inv.steps, x)
		}
	}
	slices.SortStableFunc(p.placed, func(a, b *placed) int {
		return cmp.Or(cmp.Compare(a.session, b.session), cmp.Compare(a.id, b.id))
	})
	return out, p
}

// invocations reads the plan's invocations in order, each with the id of
// its session; release lets go of each one's exchanges once it is read.
func (p *plan) invocations(release bool) iter.Seq2[int, *Invocation] {
	return func(yield func(int, *Invocation) bool) {
		for i, at := range p.placed {
			if release {
				p.placed[i] = nil
			}
			inv := at.read(p.streamed)
			if !yield(at.session, &inv) {
				return
			}
		}
	}
}

// read makes the invocation's model.
func (at *placed) read(streamed map[*cassettes.Exchange]wire.MCPCall) Invocation {
	inv := Invocation{ID: at.id, User: at.user, Tag: at.tag, Agents: []string{}, Steps: make([]Step, len(at.steps))}
	for i, x := range at.steps {
		if !slices.Contains(inv.Agents, x.Place.Agent) {
			inv.Agents = append(inv.Agents, x.Place.Agent)
		}
		inv.Steps[i] = stepOf(x)
	}
	fileHTTPCalls(&inv, at.tools, streamed)
	inv.Refused = refusalsOf(&inv)
	inv.Confirmations = confirmationsOf(&inv)
	return inv
}
