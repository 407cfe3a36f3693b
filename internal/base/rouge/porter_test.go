package rouge

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// openFixture opens a shared fixture (skipped without it unless CI is set).
func openFixture(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.SharedDir(t, "fixtures"), name))
	if err != nil {
		t.Fatalf("fixture unavailable: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// maxReported caps how many mismatches a fixture test prints, so a broken
// stemmer yields a readable failure instead of 70k lines; the total is
// reported separately.
const maxReported = 20

func TestStemFixture(t *testing.T) {
	f := openFixture(t, "porter-nltk38.tsv")
	scanner := bufio.NewScanner(f)
	checked, mismatches := 0, 0
	for lineNo := 1; scanner.Scan(); lineNo++ {
		line := scanner.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("line %d: no tab in %q", lineNo, line)
		}
		checked++
		if got := Stem(word); got != want {
			mismatches++
			if mismatches <= maxReported {
				t.Errorf("Stem(%q) = %q, want %q (line %d)", word, got, want, lineNo)
			}
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	if checked == 0 {
		t.Fatal("fixture held no words")
	}
	if mismatches > 0 {
		t.Errorf("%d of %d stems differ from NLTK", mismatches, checked)
	}
	t.Logf("checked %d stems against NLTK 3.8", checked)
}

// Each case was confirmed against the NLTK fixture and exercises one rule.
func TestStemExamples(t *testing.T) {
	cases := []struct{ word, want string }{
		{"a", "a"},                  // too short to stem
		{"is", "is"},                // two letters are left alone
		{"skies", "sky"},            // irregular form
		{"inning", "inning"},        // irregular form mapped to itself
		{"dies", "die"},             // 4-letter -ies
		{"ponies", "poni"},          // ies -> i
		{"caresses", "caress"},      // sses -> ss
		{"died", "die"},             // 4-letter -ied
		{"spied", "spi"},            // ied -> i
		{"agreed", "agre"},          // eed -> ee, then step 5a
		{"feed", "feed"},            // eed needs m > 0
		{"hopping", "hop"},          // double consonant undone
		{"hoping", "hope"},          // m=1 and *o adds e
		{"axed", "axe"},             // two-letter *o, even ending in x
		{"agreement", "agreement"},  // ement matches but fails; ment and ent are not tried
		{"happy", "happi"},          // y -> i after consonant
		{"relational", "relat"},     // ational -> ate, then step 4
		{"generalization", "gener"}, // ization -> ize, then steps 3-4
		{"hopefulness", "hope"},     // fulness -> ful -> ""
		{"controlling", "control"},  // ll -> l
		{"running", "run"},          // double n
		{"quickly", "quickli"},      // y -> i
	}
	for _, c := range cases {
		if got := Stem(c.word); got != c.want {
			t.Errorf("Stem(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func BenchmarkStem(b *testing.B) {
	words := strings.Fields("generalization relational conditional hopefulness controlling agreement running quickly skies dies")
	for b.Loop() {
		for _, w := range words {
			Stem(w)
		}
	}
}
