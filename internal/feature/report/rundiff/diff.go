// Aligning two runs: cassettes by name, sessions by first user turn then
// order, invocations in order re-aligned by user text.

package rundiff

import (
	"maps"
	"slices"

	"github.com/adkproxy/adkproxy/internal/base/align"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/scoring"
)

// Options decide which differences count.
type Options struct {
	// Ignore paths (matcher syntax) are left out of every tool call's
	// arguments and every tool result's response before comparing.
	Ignore []matcher.Path
	// ArgMatchers (an eval config's arg_matchers) compare the arguments
	// they name; an argument they accept is no change.
	ArgMatchers scoring.ArgMatchers
}

// Diff compares run NEW with run OLD; oldName and newName say where each
// was read from.
func Diff(oldName, newName string, old, new recorded.Run, opt Options) *Report {
	r := &Report{Old: oldName, New: newName, Cassettes: []CassetteDiff{}}
	byName := func(run recorded.Run) map[string]*recorded.Cassette {
		m := map[string]*recorded.Cassette{}
		for i := range run.Cassettes {
			m[run.Cassettes[i].Name] = &run.Cassettes[i]
		}
		return m
	}
	oc, nc := byName(old), byName(new)
	names := slices.Sorted(maps.Keys(oc))
	for name := range nc {
		if _, ok := oc[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		r.Cassettes = append(r.Cassettes, diffCassette(name, oc[name], nc[name], &opt))
	}
	r.Summary = summarize(r)
	return r
}

func diffCassette(name string, o, n *recorded.Cassette, opt *Options) CassetteDiff {
	cd := CassetteDiff{Name: name, Changes: []Change{}, Sessions: []SessionDiff{}}
	var olds, news []recorded.Session
	if o != nil {
		olds = o.Sessions
	}
	if n != nil {
		news = n.Sessions
	}
	for _, p := range pairSessions(olds, news) {
		cd.Sessions = append(cd.Sessions, diffSession(p.old, p.new, o == nil || n == nil, opt))
	}
	switch {
	case o == nil:
		cd.Status = Added
		cd.Changes = append(cd.Changes, Change{Kind: CassetteAdded, New: name})
	case n == nil:
		cd.Status = Removed
		cd.Changes = append(cd.Changes, Change{Kind: CassetteRemoved, Old: name})
	default:
		cd.Status = Same
		for _, s := range cd.Sessions {
			if s.Status != Same {
				cd.Status = Changed
			}
		}
	}
	return cd
}

type sessionPair struct{ old, new *recorded.Session }

// pairSessions pairs sessions with the same first user turn (the n-th
// such old one with the n-th new one), then the rest in order; what is
// left is added or removed. Pairs come in NEW's order, removed ones last.
func pairSessions(old, new []recorded.Session) []sessionPair {
	pairedOld := make([]bool, len(old))
	byUser := map[string][]int{} // unpaired old sessions by first user turn, in order
	for i := range old {
		byUser[firstUser(&old[i])] = append(byUser[firstUser(&old[i])], i)
	}
	pairs := make([]sessionPair, len(new))
	for j := range new {
		pairs[j].new = &new[j]
		if q := byUser[firstUser(&new[j])]; len(q) > 0 {
			pairedOld[q[0]], pairs[j].old = true, &old[q[0]]
			byUser[firstUser(&new[j])] = q[1:]
		}
	}
	i := 0
	for j := range pairs {
		if pairs[j].old != nil {
			continue
		}
		for i < len(old) && pairedOld[i] {
			i++
		}
		if i < len(old) {
			pairedOld[i], pairs[j].old = true, &old[i]
		}
	}
	for i := range old {
		if !pairedOld[i] {
			pairs = append(pairs, sessionPair{old: &old[i]})
		}
	}
	return pairs
}

func firstUser(s *recorded.Session) string {
	if len(s.Invocations) == 0 {
		return ""
	}
	return s.Invocations[0].User
}

// diffSession compares two sessions; inCassetteChange says the cassette
// itself is added or removed, which is the one change reported.
func diffSession(o, n *recorded.Session, inCassetteChange bool, opt *Options) SessionDiff {
	sd := SessionDiff{Status: Same, Changes: []Change{}, Invocations: []InvocationDiff{}}
	var oi, ni []recorded.Invocation
	if o != nil {
		sd.OldID, sd.User, oi = o.ID, firstUser(o), o.Invocations
	}
	if n != nil {
		sd.NewID, sd.User, ni = n.ID, firstUser(n), n.Invocations
	}
	sameUser := func(a, b recorded.Invocation) bool { return a.User == b.User }
	// Any two turns may be paired, the same text weighs more than two
	// pairs of different ones: an extra turn does not shift the rest.
	weight := func(a, b recorded.Invocation) int32 {
		if a.User == b.User {
			return 3
		}
		return 1
	}
	for _, op := range align.AlignWeighted(oi, ni, weight, sameUser) {
		var d InvocationDiff
		switch op.Op {
		case align.Keep:
			d = diffInvocation(&oi[op.Old], &ni[op.New], opt)
		case align.Delete:
			d = loneInvocation(&oi[op.Old], nil, o == nil || n == nil)
		default:
			d = loneInvocation(nil, &ni[op.New], o == nil || n == nil)
		}
		if d.Status != Same {
			sd.Status = Changed
		}
		sd.Invocations = append(sd.Invocations, d)
	}
	switch {
	case o == nil:
		sd.Status = Added
		if !inCassetteChange {
			sd.Changes = append(sd.Changes, Change{Kind: SessionAdded, New: sd.User})
		}
	case n == nil:
		sd.Status = Removed
		if !inCassetteChange {
			sd.Changes = append(sd.Changes, Change{Kind: SessionRemoved, Old: sd.User})
		}
	}
	return sd
}

// loneInvocation is an invocation on one side only; inSessionChange says
// its session is itself added or removed, which is the one change reported.
func loneInvocation(o, n *recorded.Invocation, inSessionChange bool) InvocationDiff {
	d := InvocationDiff{OldID: -1, NewID: -1, Tools: []ToolStep{}, Changes: []Change{}, Old: o, New: n,
		Cost: Cost{Old: figuresOf(o), New: figuresOf(n)}}
	inv, status, kind, side := o, Removed, InvocationRemoved, -1
	if n != nil {
		inv, status, kind, side = n, Added, InvocationAdded, 1
	}
	d.User, d.Status = inv.User, status
	if side < 0 {
		d.OldID = inv.ID
	} else {
		d.NewID = inv.ID
	}
	for i, c := range callsOf(inv) {
		ts := ToolStep{Status: status, Agent: c.agent, Name: c.Name, Args: c.Args, OldIndex: -1, NewIndex: -1}
		if side < 0 {
			ts.OldIndex = i
		} else {
			ts.NewIndex = i
		}
		d.Tools = append(d.Tools, ts)
	}
	if !inSessionChange {
		c := Change{Kind: kind}
		if side < 0 {
			c.Old = inv.User
		} else {
			c.New = inv.User
		}
		d.Changes = append(d.Changes, c)
	}
	return d
}

func summarize(r *Report) Summary {
	s := Summary{Cassettes: len(r.Cassettes), Changes: map[Kind]int{}}
	setup := map[Change]bool{} // an agent's setup changed once is resent, and reported, in every invocation
	for _, c := range r.Cassettes {
		count := func(changes []Change) {
			for _, ch := range changes {
				switch ch.Kind {
				case ModelChanged, ConfigChanged, InstructionChange, ToolsChanged:
					if setup[ch] {
						continue
					}
					setup[ch] = true
				}
				s.Changes[ch.Kind]++
			}
		}
		count(c.Changes)
		for _, sd := range c.Sessions {
			count(sd.Changes)
			for _, d := range sd.Invocations {
				count(d.Changes)
				s.Invocations++
				switch d.Status {
				case Same:
					s.Same++
				case Changed:
					s.Changed++
				case Added:
					s.Added++
				case Removed:
					s.Removed++
				}
				s.Cost.Old.add(d.Cost.Old)
				s.Cost.New.add(d.Cost.New)
				if d.Similarity != nil && (s.MinSimilarity == nil || *d.Similarity < *s.MinSimilarity) {
					s.MinSimilarity = d.Similarity
				}
			}
		}
	}
	return s
}
