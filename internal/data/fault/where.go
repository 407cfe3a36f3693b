// Which request a fault hits.

package fault

import (
	"math/rand/v2"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Request is what is known of a request when faults are considered.
type Request struct {
	// ModelCall numbers the model calls of the run from 1 (Live
	// connections included); 0 for any other request.
	ModelCall int
	Live      bool
	// Tool: a request to a tool host (Host, Path).
	Tool       bool
	Host, Path string
	Cassette   string
	// Place is where the recording that would answer sits, if any.
	Place *cassettes.Place
}

// Hits reports whether the fault applies to r. Whether it already fired
// is the caller's business: every fault but EveryCall fires once.
func (f Fault) Hits(r Request) bool {
	if r.Tool != (f.Where.Kind == AtTool) || !f.What.appliesTo(r) {
		return false
	}
	switch w := f.Where; w.Kind {
	case AtCall:
		return r.ModelCall == w.Call
	case AtPlace:
		p := r.Place
		return r.ModelCall > 0 && p != nil && p.Invocation == w.Invocation && p.Step == w.Step &&
			(w.Cassette == "" || w.Cassette == r.Cassette)
	case AtTool:
		return strings.EqualFold(r.Host, w.Host) && strings.HasPrefix(r.Path, w.Path)
	case EveryCall:
		return r.ModelCall > 0 && w.draw(r.ModelCall) < w.Probability
	}
	return false
}

// draw is a number in [0, 1) fixed by the seed and the call's number, so
// the same run with the same seed faults the same calls whatever order
// concurrent calls arrive in.
func (w Where) draw(call int) float64 {
	return rand.New(rand.NewPCG(w.Seed, uint64(call))).Float64()
}

// appliesTo reports whether w is something r can get: a Live connection
// gets a Live fault, or a status, reset or delay at its upgrade; a tool
// request no model answer; a model call no Live fault.
func (w What) appliesTo(r Request) bool {
	switch {
	case r.Live:
		return w.Live() || w.Kind == Status || w.Kind == Delay || w.Kind == Reset && w.Events == 0
	case r.Tool:
		return !w.ForModel()
	}
	return !w.Live()
}
