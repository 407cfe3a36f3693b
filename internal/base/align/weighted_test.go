// The weighted aligner: fuzzed, and an extra turn.

package align

import (
	"slices"
	"testing"
)

// apply rebuilds NEW from OLD with an edit script, checking that the
// script walks both sequences in order and keeps only pairs that may be
// kept.
func apply[T any](t *testing.T, old, new []T, ops []Edit, weight func(a, b T) int32) []T {
	t.Helper()
	var out []T
	i, j := 0, 0
	for _, op := range ops {
		switch op.Op {
		case Keep:
			if op.Old != i || op.New != j || weight(old[i], new[j]) <= 0 {
				t.Fatalf("keep %+v at old %d, new %d", op, i, j)
			}
			out = append(out, new[j])
			i++
			j++
		case Delete:
			if op.Old != i || op.New != -1 {
				t.Fatalf("delete %+v at old %d", op, i)
			}
			i++
		case Insert:
			if op.New != j || op.Old != -1 {
				t.Fatalf("insert %+v at new %d", op, j)
			}
			out = append(out, new[j])
			j++
		}
	}
	if i != len(old) || j != len(new) {
		t.Fatalf("script stops at old %d of %d, new %d of %d", i, len(old), j, len(new))
	}
	return out
}

// byteWeight pairs equal bytes (3) and bytes of one parity (1), like
// turns of equal or different text.
func byteWeight(a, b byte) int32 {
	switch {
	case a == b:
		return 3
	case a%2 == b%2:
		return 1
	}
	return 0
}

func byteEqual(a, b byte) bool { return a == b }

// FuzzAlign: for any two sequences, the edit script rebuilds NEW from OLD,
// and it keeps every element the two have in common when that is all
// that can be paired.
func FuzzAlign(f *testing.F) {
	f.Add([]byte("abcd"), []byte("abxcd"))
	f.Add([]byte(""), []byte("xyz"))
	f.Add([]byte("ab"), []byte("ba"))
	f.Add([]byte("aaaa"), []byte("aa"))
	f.Fuzz(func(t *testing.T, old, new []byte) {
		ops := AlignWeighted(old, new, byteWeight, byteEqual)
		if got := apply(t, old, new, ops, byteWeight); !slices.Equal(got, new) && !(len(got) == 0 && len(new) == 0) {
			t.Fatalf("rebuilt %q, want %q", got, new)
		}
		kept := 0
		for _, op := range Align(old, new, byteEqual) {
			if op.Op == Keep {
				kept++
			}
		}
		if want := lcsLength(old, new); kept != want {
			t.Fatalf("kept %d of a common subsequence of %d", kept, want)
		}
	})
}

// lcsLength is the textbook longest common subsequence length.
func lcsLength(a, b []byte) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

// An extra turn in NEW is an insertion; the turns after it stay paired
// with their equals rather than shifting by one.
func TestAlignExtraTurn(t *testing.T) {
	old := []string{"hi", "weather?", "thanks"}
	new := []string{"hi", "weather?", "and tomorrow?", "thanks"}
	weight := func(a, b string) int32 {
		if a == b {
			return 3
		}
		return 1
	}
	ops := AlignWeighted(old, new, weight, func(a, b string) bool { return a == b })
	want := []Edit{{Keep, 0, 0}, {Keep, 1, 1}, {Insert, -1, 2}, {Keep, 2, 3}}
	if !slices.Equal(ops, want) {
		t.Fatalf("ops %v, want %v", ops, want)
	}
}
