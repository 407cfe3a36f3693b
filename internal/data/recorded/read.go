// Reading cassettes into the model: sessions and invocations by id, steps
// and tool exchanges in file order, the rest as other.

package recorded

import (
	"cmp"
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
		file, err := filepath.Rel(dir, loaded[name].File)
		if err != nil {
			file = loaded[name].File
		}
		run.Cassettes = append(run.Cassettes, CassetteOf(name, filepath.ToSlash(file), loaded[name]))
	}
	return run
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
	conversation.Organize(matcher.Default(), c.Exchanges)
	out := Cassette{Name: name, File: file, Provenance: c.Provenance}
	type key struct{ session, invocation int }
	type placed struct {
		id           int
		user, tag    string
		steps, tools []*cassettes.Exchange
	}
	invocations := map[key]*placed{}
	var order []key
	streamed := wire.MCPStreamAnswers(c.Exchanges)
	for _, x := range wire.WithLiveSteps(c.Exchanges) {
		p := x.Place
		if _, stream := wire.MCPStreamServer(x); p == nil || stream {
			out.Other = append(out.Other, x)
			continue
		}
		k := key{p.Session, p.Invocation}
		at := invocations[k]
		if at == nil {
			at = &placed{id: p.Invocation, tag: p.Tag}
			invocations[k] = at
			order = append(order, k)
		}
		if at.user == "" {
			at.user = p.User
		}
		if x.IsTool() {
			at.tools = append(at.tools, x)
		} else {
			at.steps = append(at.steps, x)
		}
	}
	slices.SortStableFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.session, b.session), cmp.Compare(a.invocation, b.invocation))
	})
	for _, k := range order {
		if len(out.Sessions) == 0 || out.Sessions[len(out.Sessions)-1].ID != k.session {
			out.Sessions = append(out.Sessions, Session{ID: k.session})
		}
		s := &out.Sessions[len(out.Sessions)-1]
		at := invocations[k]
		s.Invocations = append(s.Invocations, Invocation{ID: at.id, User: at.user, Tag: at.tag, Agents: []string{}, Steps: make([]Step, len(at.steps))})
		inv := &s.Invocations[len(s.Invocations)-1]
		for i, x := range at.steps {
			if !slices.Contains(inv.Agents, x.Place.Agent) {
				inv.Agents = append(inv.Agents, x.Place.Agent)
			}
			inv.Steps[i] = stepOf(x)
		}
		fileHTTPCalls(inv, at.tools, streamed)
		inv.Refused = refusalsOf(inv)
		inv.Confirmations = confirmationsOf(inv)
	}
	return out
}
