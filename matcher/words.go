// Word diffs of long changed strings, in git's word-diff style, so a
// mismatch in prose shows the words that changed.

package matcher

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/align"
)

// longText is the length from which a changed string is shown as a word
// diff rather than as two quoted values.
const longText = 60

// contextWords is how many unchanged words are kept around each change.
const contextWords = 4

// WordDiff describes how text b differs from a in git's word-diff style:
// "the [-old-]{+new+} words", with long unchanged stretches cut to "…".
func WordDiff(a, b string) string {
	aw, bw := strings.Fields(a), strings.Fields(b)
	return renderWordEdits(aw, bw, align.Align(aw, bw, func(x, y string) bool { return x == y }))
}

// wordDiffWithin is WordDiff charged to the explanation's budget; a text
// whose changed middle does not fit in what is left is shown whole, saying
// why.
func wordDiffWithin(a, b string, left *budget) string {
	aw, bw := strings.Fields(a), strings.Fields(b)
	edits, coarse := align.AlignWithin(aw, bw, func(x, y string) bool { return x == y }, &left.cells)
	if coarse {
		return fmt.Sprintf("word diff left out (over the budget of %d cells per request): recorded %s, got %s",
			maxDiffCells, truncate(strconv.Quote(a)), truncate(strconv.Quote(b)))
	}
	return renderWordEdits(aw, bw, edits)
}

// renderWordEdits is the word diff of aw and bw for their alignment.
func renderWordEdits(aw, bw []string, edits []align.Edit) string {
	ops := make([]wordOp, len(edits))
	changed := false
	for k, e := range edits {
		switch e.Op {
		case align.Keep:
			ops[k] = wordOp{' ', aw[e.Old]}
		case align.Delete:
			ops[k], changed = wordOp{'-', aw[e.Old]}, true
		case align.Insert:
			ops[k], changed = wordOp{'+', bw[e.New]}, true
		}
	}
	if !changed {
		return "(only white space differs)"
	}
	return renderWordOps(ops)
}

type wordOp struct {
	kind byte // ' ' same, '-' removed, '+' added
	word string
}

// renderWordOps writes changes in brackets, keeping contextWords unchanged
// words on each side of a change and cutting the rest to "…".
func renderWordOps(ops []wordOp) string {
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op.kind == ' ' {
			continue
		}
		for k := max(0, i-contextWords); k <= min(len(ops)-1, i+contextWords); k++ {
			keep[k] = true
		}
	}
	var b strings.Builder
	cut := false
	for i := 0; i < len(ops); {
		if !keep[i] {
			if !cut {
				b.WriteString("… ")
				cut = true
			}
			i++
			continue
		}
		cut = false
		kind := ops[i].kind
		var words []string
		for i < len(ops) && keep[i] && ops[i].kind == kind {
			words = append(words, ops[i].word)
			i++
		}
		text := strings.Join(words, " ")
		switch kind {
		case '-':
			b.WriteString("[-" + text + "-] ")
		case '+':
			b.WriteString("{+" + text + "+} ")
		default:
			b.WriteString(text + " ")
		}
	}
	return strings.TrimSpace(b.String())
}
