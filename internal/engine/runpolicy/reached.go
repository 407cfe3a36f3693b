// The rule for a run no request reached: the agent bypassed adkproxy (a
// base URL of its own, a client that ignores the variables), so a green
// run would prove nothing.

package runpolicy

import (
	"os"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
)

// Scope is what a run was there to serve.
type Scope struct {
	// Dir is the cassettes folder.
	Dir string
	// Cassette is the one cassette the run is for (a Go test's); empty,
	// every cassette in Dir (a CLI run, which serves many tests).
	Cassette string
	// Recording says the run records (any record mode), else it replays.
	Recording bool
	// Strict says a replay is strict: lenient replay accepts anything.
	Strict bool
}

// Miss is what a run that no request reached failed to do.
type Miss int

const (
	// Reached: a request reached the run, or the run expected none.
	Reached Miss = iota
	// NothingRecorded: a recording run that no request reached, which has
	// nothing to write.
	NothingRecorded
	// NothingReplayed: a strict replay whose cassettes exist and that no
	// request reached.
	NothingReplayed
)

// NothingReached applies the rule to a finished run of srv: it says
// whether any request reached the run's scope (answered, refused or hit by
// a fault), and if none did, what the run failed to do. A replay of
// cassettes that do not exist expects nothing.
func NothingReached(srv *proxy.Server, s Scope) Miss {
	if reached(srv.Report(), srv.Stats(), s.Cassette) {
		return Reached
	}
	switch {
	case s.Recording:
		return NothingRecorded
	case s.Strict && exist(srv, s):
		return NothingReplayed
	}
	return Reached
}

// reached says whether a request reached the run, or cassette alone when
// it is not empty.
func reached(r proxy.Report, st proxy.Stats, cassette string) bool {
	if cassette == "" {
		if st.Failed > 0 {
			return true
		}
		for outcome, count := range r.Counts {
			if outcome != matcher.OutcomeUnused && count > 0 {
				return true
			}
		}
	} else if r.Truncated > 0 {
		return true // outcomes not listed may have reached it
	}
	for _, o := range r.Outcomes {
		if o.Outcome != matcher.OutcomeUnused && (cassette == "" || o.Cassette == cassette) {
			return true
		}
	}
	for _, f := range r.Faults { // answered with a fault, not an outcome above
		if f.Injected && (cassette == "" || f.Cassette == cassette) {
			return true
		}
	}
	return false
}

// exist says whether the cassettes of the scope are there to be reached:
// the one on disk, where recording writes it (the proxy opens cassettes
// only when asked for one), or any of the folder's.
func exist(srv *proxy.Server, s Scope) bool {
	if s.Cassette == "" {
		return len(srv.Cassettes()) > 0
	}
	path, err := cassettes.PathFor(s.Dir, s.Cassette)
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}
