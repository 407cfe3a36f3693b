// Package align aligns two sequences (longest common subsequence, plain or
// weighted), for diffs that follow insertions and deletions instead of
// comparing by position: word diffs, history turns and tool declarations
// (matcher), two runs' turns and tool calls (rundiff).
package align

// EditOp says what one step of an alignment does.
type EditOp int

const (
	Keep   EditOp = iota // old[Old] and new[New] are equal
	Delete               // old[Old] is not in new
	Insert               // new[New] is not in old
)

// Edit is one step of an alignment. Old and New index the two sequences;
// the one an Insert or a Delete lacks is -1.
type Edit struct {
	Op       EditOp
	Old, New int
}

// maxAlignCells bounds the LCS table (old × new elements, after the common
// start and end are trimmed); beyond it the middle is aligned as all
// deleted, then all inserted, which is still correct, only coarser.
const maxAlignCells = 1 << 20

// Align returns a shortest edit script turning old into new: a longest
// common subsequence (by eq) kept, the rest deleted or inserted, in order.
// Where several alignments are equally short, deletions come before
// insertions. It takes time and memory proportional to len(old)×len(new)
// after trimming the common start and end, up to maxAlignCells.
func Align[T any](old, new []T, eq func(a, b T) bool) []Edit {
	return AlignWeighted(old, new, func(a, b T) int32 {
		if eq(a, b) {
			return 1
		}
		return 0
	}, eq)
}

// AlignWeighted is Align where pairs weigh differently: it keeps the
// pairs of the highest summed weight, in order; weight(a, b) is 0 for a
// pair that may not be kept. equal pairs must be of the highest weight
// there is: they are kept directly at the common start and end, which
// never loses weight. Comparing runs uses it to pair turns of the same
// text before turns of another, and tool calls equal in name and
// arguments before calls of the same name.
func AlignWeighted[T any](old, new []T, weight func(a, b T) int32, equal func(a, b T) bool) []Edit {
	edits := make([]Edit, 0, max(len(old), len(new)))
	pre := 0
	for pre < len(old) && pre < len(new) && equal(old[pre], new[pre]) {
		edits = append(edits, Edit{Keep, pre, pre})
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && equal(old[len(old)-1-suf], new[len(new)-1-suf]) {
		suf++
	}
	a, b := old[pre:len(old)-suf], new[pre:len(new)-suf]
	edits = appendMiddle(edits, a, b, pre, weight)
	for k := suf; k > 0; k-- {
		edits = append(edits, Edit{Keep, len(old) - k, len(new) - k})
	}
	return edits
}

// appendMiddle aligns a and b, which start at index at of both sequences.
func appendMiddle[T any](edits []Edit, a, b []T, at int, weight func(a, b T) int32) []Edit {
	n, m := len(a), len(b)
	if n*m > maxAlignCells {
		for i := range a {
			edits = append(edits, Edit{Delete, at + i, -1})
		}
		for j := range b {
			edits = append(edits, Edit{Insert, -1, at + j})
		}
		return edits
	}
	// best[i*(m+1)+j] is the highest weight of an alignment of a[i:] and b[j:].
	w := m + 1
	best := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := max(best[(i+1)*w+j], best[i*w+j+1])
			if pw := weight(a[i], b[j]); pw > 0 {
				v = max(v, best[(i+1)*w+j+1]+pw)
			}
			best[i*w+j] = v
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch pw := weight(a[i], b[j]); {
		case pw > 0 && best[i*w+j] == best[(i+1)*w+j+1]+pw:
			edits = append(edits, Edit{Keep, at + i, at + j})
			i++
			j++
		case best[i*w+j] == best[(i+1)*w+j]:
			edits = append(edits, Edit{Delete, at + i, -1})
			i++
		default:
			edits = append(edits, Edit{Insert, -1, at + j})
			j++
		}
	}
	for ; i < n; i++ {
		edits = append(edits, Edit{Delete, at + i, -1})
	}
	for ; j < m; j++ {
		edits = append(edits, Edit{Insert, -1, at + j})
	}
	return edits
}

// AlignWithin is Align with a shared bound: the middle's table is charged
// to *cells (old × new elements, after the common start and end), and a
// middle that does not fit in what is left (or in maxAlignCells) is
// aligned as all deleted, then all inserted, charging nothing. It reports
// whether the alignment was coarsened so.
func AlignWithin[T any](old, new []T, eq func(a, b T) bool, cells *int64) ([]Edit, bool) {
	pre := 0
	for pre < len(old) && pre < len(new) && eq(old[pre], new[pre]) {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && eq(old[len(old)-1-suf], new[len(new)-1-suf]) {
		suf++
	}
	n, m := int64(len(old)-pre-suf), int64(len(new)-pre-suf)
	if n*m > *cells || n*m > maxAlignCells {
		edits := make([]Edit, 0, max(len(old), len(new)))
		for i := range pre {
			edits = append(edits, Edit{Keep, i, i})
		}
		for i := range n {
			edits = append(edits, Edit{Delete, pre + int(i), -1})
		}
		for j := range m {
			edits = append(edits, Edit{Insert, -1, pre + int(j)})
		}
		for k := suf; k > 0; k-- {
			edits = append(edits, Edit{Keep, len(old) - k, len(new) - k})
		}
		return edits, n > 0 && m > 0
	}
	*cells -= n * m
	return Align(old, new, eq), false
}
