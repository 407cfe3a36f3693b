package scoring

import (
	"fmt"
	"testing"
)

// BenchmarkPair: make bench's row for pairing (issue 39 item 9) at 5k and
// 20k eval cases over as many sessions, every case found by its first user
// turn (no cassette is named like a case), in reverse order: the case a
// scan of the sessions would find last comes first. Near-linear; the scan
// it replaced took about 40 s at 20k.
func BenchmarkPair(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		sessions, exp := pairWorkload(n)
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) {
			for b.Loop() {
				if cases, unpaired := Pair(sessions, exp); len(cases) != n || len(unpaired) != 0 {
					b.Fatalf("%d cases, %d unpaired", len(cases), len(unpaired))
				}
			}
		})
	}
}

func pairWorkload(n int) ([]Session, *Expected) {
	sessions := make([]Session, n)
	exp := &Expected{Cases: make([]ExpectedCase, n)}
	for i := range n {
		text := fmt.Sprintf("What is the weather in city %d this afternoon?", i)
		sessions[i] = Session{Cassette: fmt.Sprintf("run/%05d", i), ID: 1, Invocations: []Invocation{{UserText: text}}}
		exp.Cases[n-1-i] = ExpectedCase{ID: fmt.Sprintf("case_%d", i), Invocations: []Invocation{{UserText: text}}}
	}
	return sessions, exp
}
