// Word diffs of long changed strings, in git's word-diff style, so a
// mismatch in prose shows the words that changed.

package matcher

import "strings"

// longText is the length from which a changed string is shown as a word
// diff rather than as two quoted values.
const longText = 60

// maxWordCells bounds the word-diff table (words × words); beyond it only
// the common start and end are trimmed, which is still readable.
const maxWordCells = 1 << 20

// contextWords is how many unchanged words are kept around each change.
const contextWords = 4

// WordDiff describes how text b differs from a in git's word-diff style:
// "the [-old-]{+new+} words", with long unchanged stretches cut to "…".
func WordDiff(a, b string) string {
	aw, bw := strings.Fields(a), strings.Fields(b)
	pre := 0
	for pre < len(aw) && pre < len(bw) && aw[pre] == bw[pre] {
		pre++
	}
	suf := 0
	for suf < len(aw)-pre && suf < len(bw)-pre && aw[len(aw)-1-suf] == bw[len(bw)-1-suf] {
		suf++
	}
	midA, midB := aw[pre:len(aw)-suf], bw[pre:len(bw)-suf]
	var ops []wordOp
	for _, w := range aw[:pre] {
		ops = append(ops, wordOp{' ', w})
	}
	ops = append(ops, diffWords(midA, midB)...)
	for _, w := range aw[len(aw)-suf:] {
		ops = append(ops, wordOp{' ', w})
	}
	if len(midA) == 0 && len(midB) == 0 {
		return "(only white space differs)"
	}
	return renderWordOps(ops)
}

type wordOp struct {
	kind byte // ' ' same, '-' removed, '+' added
	word string
}

// diffWords is a longest-common-subsequence diff of two word lists.
func diffWords(a, b []string) []wordOp {
	if len(a)*len(b) > maxWordCells {
		var ops []wordOp
		for _, w := range a {
			ops = append(ops, wordOp{'-', w})
		}
		for _, w := range b {
			ops = append(ops, wordOp{'+', w})
		}
		return ops
	}
	// lcs[i][j] = LCS length of a[i:] and b[j:]
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []wordOp
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, wordOp{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, wordOp{'-', a[i]})
			i++
		default:
			ops = append(ops, wordOp{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, wordOp{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, wordOp{'+', b[j]})
	}
	return ops
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
