// The aligner: an edit script turning one sequence into another.

package rundiff

// OpKind is what an edit step does.
type OpKind byte

const (
	Keep   OpKind = '=' // Old and New are paired
	Delete OpKind = '-' // Old is not in NEW
	Insert OpKind = '+' // New is not in OLD
)

// Op is one step of an edit script; Old and New index the two sequences
// (-1 where the step has none).
type Op struct {
	Kind     OpKind
	Old, New int
}

// maxCells bounds the alignment table; beyond it what is left after the
// common start and end is paired by position.
const maxCells = 1 << 22

// Align returns an edit script turning old into new that maximises the
// summed weight of the pairs it keeps. weight(a, b) is 0 for a pair that
// may not be kept; equal(a, b) pairs of the highest weight are matched
// directly at the common start and end (that never loses weight). Applying
// the script to old — Keep and Insert in order take the new element —
// rebuilds new.
func Align[T any](old, new []T, weight func(a, b T) int, equal func(a, b T) bool) []Op {
	ops := make([]Op, 0, max(len(old), len(new)))
	pre := 0
	for pre < len(old) && pre < len(new) && equal(old[pre], new[pre]) {
		ops = append(ops, Op{Keep, pre, pre})
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && equal(old[len(old)-1-suf], new[len(new)-1-suf]) {
		suf++
	}
	a, b := old[pre:len(old)-suf], new[pre:len(new)-suf]
	if len(a)*len(b) > maxCells {
		ops = append(ops, byPosition(a, b, weight, pre)...)
	} else {
		ops = append(ops, lcs(a, b, weight, pre)...)
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, Op{Keep, len(old) - k, len(new) - k})
	}
	return ops
}

// lcs is the weighted longest common subsequence of a and b, whose
// indexes start at offset in the whole sequences.
func lcs[T any](a, b []T, weight func(a, b T) int, offset int) []Op {
	n, m := len(a), len(b)
	// best[i*(m+1)+j] is the best weight of a[i:] against b[j:].
	best := make([]int, (n+1)*(m+1))
	at := func(i, j int) int { return i*(m+1) + j }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := max(best[at(i+1, j)], best[at(i, j+1)])
			if w := weight(a[i], b[j]); w > 0 {
				v = max(v, best[at(i+1, j+1)]+w)
			}
			best[at(i, j)] = v
		}
	}
	var ops []Op
	i, j := 0, 0
	for i < n && j < m {
		switch w := weight(a[i], b[j]); {
		case w > 0 && best[at(i, j)] == best[at(i+1, j+1)]+w:
			ops = append(ops, Op{Keep, offset + i, offset + j})
			i++
			j++
		case best[at(i, j)] == best[at(i+1, j)]:
			ops = append(ops, Op{Delete, offset + i, -1})
			i++
		default:
			ops = append(ops, Op{Insert, -1, offset + j})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, Op{Delete, offset + i, -1})
	}
	for ; j < m; j++ {
		ops = append(ops, Op{Insert, -1, offset + j})
	}
	return ops
}

// byPosition pairs a[i] with b[i] where they may be paired; the rest is
// deleted and inserted.
func byPosition[T any](a, b []T, weight func(a, b T) int, offset int) []Op {
	var ops []Op
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i < len(a) && i < len(b) && weight(a[i], b[i]) > 0:
			ops = append(ops, Op{Keep, offset + i, offset + i})
		default:
			if i < len(a) {
				ops = append(ops, Op{Delete, offset + i, -1})
			}
			if i < len(b) {
				ops = append(ops, Op{Insert, -1, offset + i})
			}
		}
	}
	return ops
}
