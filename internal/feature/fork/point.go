// The fork point: SESSION/INVOCATION/STEP of a recorded cassette, and the
// recording up to it that the fork replays.

package fork

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// Point is a step of a recorded run, as ls numbers it: session and
// invocation ids from 1, the step's number in its invocation from 0.
type Point struct{ Session, Invocation, Step int }

func (p Point) String() string { return fmt.Sprintf("%d/%d/%d", p.Session, p.Invocation, p.Step) }

// ParsePoint reads "SESSION/INVOCATION/STEP".
func ParsePoint(s string) (Point, error) {
	parts := strings.Split(s, "/")
	bad := fmt.Errorf("--at %q: want SESSION/INVOCATION/STEP as ls numbers them, e.g. 1/2/0 (session 1, invocation 2, its first step)", s)
	if len(parts) != 3 {
		return Point{}, bad
	}
	var n [3]int
	for i, part := range parts {
		v, err := strconv.Atoi(part)
		if err != nil || v < 0 || (i < 2 && v < 1) {
			return Point{}, bad
		}
		n[i] = v
	}
	return Point{n[0], n[1], n[2]}, nil
}

// seed is the recording before the fork point: the cassette's exchanges in
// file order up to the step's, and how many of them are model calls (the
// fork replays that many and forwards the rest).
func seed(name string, c *cassettes.Cassette, at Point) (exchanges []*cassettes.Exchange, calls int, err error) {
	rc := recorded.CassetteOf(name, "", c)
	x := stepAt(rc, at)
	if x == nil {
		return nil, 0, fmt.Errorf("cassette %q has no step %s (session %d, invocation %d, step %d): 'adkproxy ls' lists its steps", name, at, at.Session, at.Invocation, at.Step)
	}
	i := slices.Index(c.Exchanges, x)
	if i < 0 {
		return nil, 0, fmt.Errorf("cassette %q: step %s is not one of its exchanges", name, at)
	}
	exchanges = slices.Clone(c.Exchanges[:i])
	for _, e := range exchanges {
		if isModelCall(&e.Request) {
			calls++
		}
	}
	return exchanges, calls, nil
}

func stepAt(rc recorded.Cassette, at Point) *cassettes.Exchange {
	for _, s := range rc.Sessions {
		if s.ID != at.Session {
			continue
		}
		for _, inv := range s.Invocations {
			if inv.ID != at.Invocation {
				continue
			}
			for _, st := range inv.Steps {
				if st.Number == at.Step {
					return st.Exchange
				}
			}
		}
	}
	return nil
}

// isModelCall: the fork counts model calls of Gemini's API and the
// OpenAI-compatible endpoint, the calls it can change.
func isModelCall(req *cassettes.Request) bool {
	c := wire.Recognise(req)
	return c.Kind == wire.Model && (c.Dialect.Name() == "gemini" || c.Dialect.Name() == "openai")
}
