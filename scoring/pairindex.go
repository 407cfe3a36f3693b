// The index pairing looks sessions up in, so that pairing N cases with M
// sessions costs about N + M, not N × M (20k × 20k took 40 s).

package scoring

import (
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/samplename"
)

// sessionIndex lists sessions (by position, in SessionsOf order) under
// each key a case may find them by; each list is ascending, and its cursor
// skips taken sessions once, so every look-up is the first free session
// in order, as a scan from the start would find.
type sessionIndex struct {
	taken  []bool
	lists  map[string][]int
	cursor map[string]int
}

func newSessionIndex(n int) *sessionIndex {
	return &sessionIndex{taken: make([]bool, n), lists: map[string][]int{}, cursor: map[string]int{}}
}

func (x *sessionIndex) add(key string, j int) { x.lists[key] = append(x.lists[key], j) }

// take marks and returns the first free session under key; -1 when none.
func (x *sessionIndex) take(key string) int {
	l, c := x.lists[key], x.cursor[key]
	for c < len(l) && x.taken[l[c]] {
		c++
	}
	x.cursor[key] = c
	if c == len(l) {
		return -1
	}
	x.taken[l[c]] = true
	return l[c]
}

// Keys of the lists: a name, or a first user text (never the same key).
func nameKey(s string) string { return "n\x00" + s }
func textKey(s string) string { return "t\x00" + s }

// qualifiedName is "cassette/<session id>", the name golden runs give a
// case of a cassette with several sessions; a sample's session is named
// for its cassette (NAME@2's session 1 is NAME/1).
func qualifiedName(s Session) string { return samplename.Base(s.Cassette) + "/" + strconv.Itoa(s.ID) }

// indexSessions indexes sessions by name and by first user text. With
// single, a cassette's name finds its session only when it holds one
// (Pair); otherwise it finds every session of the cassette (PairRuns).
func indexSessions(sessions []Session, single bool) *sessionIndex {
	perCassette := map[string]int{}
	for _, s := range sessions {
		perCassette[s.Cassette]++
	}
	x := newSessionIndex(len(sessions))
	for j, s := range sessions {
		base := samplename.Base(s.Cassette) // a sample stands for its cassette
		if !single || perCassette[s.Cassette] == 1 {
			x.add(nameKey(base), j)
		}
		x.add(nameKey(qualifiedName(s)), j)
		if len(s.Invocations) > 0 {
			x.add(textKey(strings.TrimSpace(s.Invocations[0].UserText)), j)
		}
	}
	return x
}
