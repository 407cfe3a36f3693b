// Aligning two sequences (longest common subsequence), for diffs that
// follow insertions and deletions instead of comparing by position: word
// diffs, history turns, tool declarations.

package matcher

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
	edits := make([]Edit, 0, max(len(old), len(new)))
	pre := 0
	for pre < len(old) && pre < len(new) && eq(old[pre], new[pre]) {
		edits = append(edits, Edit{Keep, pre, pre})
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && eq(old[len(old)-1-suf], new[len(new)-1-suf]) {
		suf++
	}
	a, b := old[pre:len(old)-suf], new[pre:len(new)-suf]
	edits = appendMiddle(edits, a, b, pre, eq)
	for k := suf; k > 0; k-- {
		edits = append(edits, Edit{Keep, len(old) - k, len(new) - k})
	}
	return edits
}

// appendMiddle aligns a and b, which start at index at of both sequences.
func appendMiddle[T any](edits []Edit, a, b []T, at int, eq func(a, b T) bool) []Edit {
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
	// lcs[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if eq(a[i], b[j]) {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case eq(a[i], b[j]):
			edits = append(edits, Edit{Keep, at + i, at + j})
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
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
