// ROUGE-1 exactly as Python's rouge_score computes it, and when ADK stems
// the words first.

package rouge

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/runenames"
)

// Score is a ROUGE result as rouge_score reports it.
type Score struct {
	Precision, Recall, FMeasure float64
}

// Rouge1 computes ROUGE-1 of candidate against reference exactly as Python's
// rouge_score 0.1.2 does (RougeScorer(["rouge1"], use_stemmer).score), which
// is what ADK's response-match metric reports.
func Rouge1(reference, candidate string, useStemmer bool) Score {
	return Rouge1Tokens(Tokenize(reference, useStemmer), Tokenize(candidate, useStemmer))
}

// Rouge1Tokens is Rouge1 on tokenized texts.
func Rouge1Tokens(refTokens, candTokens []string) Score {
	candCounts := make(map[string]int, len(candTokens))
	for _, tok := range candTokens {
		candCounts[tok]++
	}
	// Each candidate occurrence can match one reference occurrence, which is
	// the sum over unigrams of min(reference count, candidate count).
	overlap := 0
	for _, tok := range refTokens {
		if candCounts[tok] > 0 {
			candCounts[tok]--
			overlap++
		}
	}

	precision := float64(overlap) / float64(max(len(candTokens), 1))
	recall := float64(overlap) / float64(max(len(refTokens), 1))
	return Score{Precision: precision, Recall: recall, FMeasure: FMeasure(precision, recall)}
}

// FMeasure is the harmonic mean, evaluated in Python's operation order so
// the result rounds identically.
func FMeasure(precision, recall float64) float64 {
	if precision+recall > 0 {
		return 2 * precision * recall / (precision + recall)
	}
	return 0
}

// Tokenize reproduces rouge_score's tokenizer: Python's str.lower(), every
// run of characters outside [a-z0-9] becomes a separator, and tokens longer
// than three characters are stemmed when asked.
func Tokenize(text string, useStemmer bool) []string {
	folded := make([]byte, 0, len(text))
	for _, r := range text {
		if r == 'İ' {
			// Python lowercases U+0130 to "i" plus U+0307 COMBINING DOT
			// ABOVE, and the dot splits the word; Go's simple case mapping
			// would give a lone "i" and glue the word together.
			folded = append(folded, 'i', ' ')
			continue
		}
		// Besides A-Z only U+212A KELVIN SIGN lowercases into [a-z0-9], and
		// unicode.ToLower maps it to 'k' just as Python does.
		lower := unicode.ToLower(r)
		if isASCIIAlnum(lower) {
			folded = append(folded, byte(lower))
		} else {
			folded = append(folded, ' ')
		}
	}

	tokens := strings.Fields(string(folded))
	if useStemmer {
		for i, tok := range tokens {
			if len(tok) > 3 {
				tokens[i] = Stem(tok)
			}
		}
		// rouge_score drops tokens that are empty after stemming.
		kept := tokens[:0]
		for _, tok := range tokens {
			if tok != "" {
				kept = append(kept, tok)
			}
		}
		tokens = kept
	}
	return tokens
}

func isASCIIAlnum(r rune) bool {
	return ('a' <= r && r <= 'z') || ('0' <= r && r <= '9')
}

// UseStemmerFor reports whether ADK would score this pair with the stemmer:
// newer ADK versions stem only when both texts are mostly Latin script, since
// an English stemmer only mangles other scripts.
func UseStemmerFor(actual, expected string) bool {
	return isMostlyLatin(actual) && isMostlyLatin(expected)
}

// isMostlyLatin reports whether more than half of the letters (Unicode
// category L*) in text have "LATIN" in their Unicode name. A text without
// letters counts as Latin.
func isMostlyLatin(text string) bool {
	letters, latin := 0, 0
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		// ASCII letters are all LATIN; skipping the name lookup keeps the
		// common case cheap.
		if r < 0x80 || strings.Contains(runenames.Name(r), "LATIN") {
			latin++
		}
	}
	// latin/letters > 0.5 without floating point.
	return letters == 0 || 2*latin > letters
}
