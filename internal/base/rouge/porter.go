// NLTK's Porter stemmer, reproduced exactly, for ROUGE.

package rouge

import "strings"

// This file implements the Porter stemmer exactly as NLTK's PorterStemmer
// behaves in its default NLTK_EXTENSIONS mode, because ADK's ROUGE scores are
// computed with that stemmer and must be reproduced bit for bit.

// irregularForms maps whole words to fixed stems before any rule runs; NLTK
// keeps these aside because the rules mangle them (e.g. "inning" -> "in").
var irregularForms = map[string]string{
	"sky":      "sky",
	"skies":    "sky",
	"dying":    "die",
	"lying":    "lie",
	"tying":    "tie",
	"news":     "news",
	"innings":  "inning",
	"inning":   "inning",
	"outings":  "outing",
	"outing":   "outing",
	"cannings": "canning",
	"canning":  "canning",
	"howe":     "howe",
	"proceed":  "proceed",
	"exceed":   "exceed",
	"succeed":  "succeed",
}

// Stem returns the Porter stem of a lowercase ASCII word, matching NLTK's
// PorterStemmer().stem.
func Stem(word string) string {
	if stem, ok := irregularForms[word]; ok {
		return stem
	}
	// NLTK leaves one- and two-letter words alone; the published algorithm
	// does not say so, but NLTK's output is what we must match.
	if len(word) <= 2 {
		return word
	}
	w := step1a(word)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	return step5b(w)
}

// rule rewrites suffix to replacement when cond holds. cond receives the
// whole word as well as the stem, because a few NLTK conditions look at a
// different slice of the word than the one being replaced.
type rule struct {
	suffix, replacement string
	cond                func(word, stem string) bool
}

// applyFirstMatch applies the first rule whose suffix matches. As in NLTK,
// a matching rule whose condition fails ends the search: later rules with
// shorter suffixes are not tried.
func applyFirstMatch(word string, rules []rule) string {
	for _, r := range rules {
		if !strings.HasSuffix(word, r.suffix) {
			continue
		}
		stem := word[:len(word)-len(r.suffix)]
		if r.cond == nil || r.cond(word, stem) {
			return stem + r.replacement
		}
		return word
	}
	return word
}

func stemMeasurePositive(_, stem string) bool { return measure(stem) > 0 }
func stemMeasureAbove1(_, stem string) bool   { return measure(stem) > 1 }

// step1a removes plurals.
func step1a(w string) string {
	// NLTK keeps "dies" -> "die" instead of "di" by special-casing 4 letters.
	if len(w) == 4 && strings.HasSuffix(w, "ies") {
		return w[:1] + "ie"
	}
	return applyFirstMatch(w, step1aRules)
}

var step1aRules = []rule{
	{"sses", "ss", nil},
	{"ies", "i", nil},
	{"ss", "ss", nil},
	{"s", "", nil},
}

// step1b removes -ed and -ing, then repairs the stem so that later steps see
// a plausible word ("hoping" -> "hop" -> "hope").
func step1b(w string) string {
	// NLTK: "died" -> "die" but "spied" -> "spi".
	if strings.HasSuffix(w, "ied") {
		if len(w) == 4 {
			return w[:1] + "ie"
		}
		return w[:len(w)-3] + "i"
	}
	if strings.HasSuffix(w, "eed") {
		stem := w[:len(w)-3]
		if measure(stem) > 0 {
			return stem + "ee"
		}
		return w
	}

	var stem string
	switch {
	case strings.HasSuffix(w, "ed") && containsVowel(w[:len(w)-2]):
		stem = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && containsVowel(w[:len(w)-3]):
		stem = w[:len(w)-3]
	default:
		return w
	}

	switch {
	case strings.HasSuffix(stem, "at"), strings.HasSuffix(stem, "bl"), strings.HasSuffix(stem, "iz"):
		return stem + "e"
	case endsDoubleConsonant(stem):
		// A double l, s or z stays, and then no other repair is tried.
		if last := stem[len(stem)-1]; last == 'l' || last == 's' || last == 'z' {
			return stem
		}
		return stem[:len(stem)-1]
	case measure(stem) == 1 && endsCVC(stem):
		return stem + "e"
	}
	return stem
}

// step1c turns a final y into i after a consonant ("happy" -> "happi"). NLTK
// requires the consonant and a stem longer than one letter, so "say" and
// "by" keep their y.
func step1c(w string) string {
	n := len(w)
	if n > 2 && w[n-1] == 'y' && isConsonant(w, n-2) {
		return w[:n-1] + "i"
	}
	return w
}

// step2 maps double suffixes to single ones ("-ization" -> "-ize").
func step2(w string) string {
	// NLTK tries alli -> al before the table (the published algorithm lists
	// it after bli) and then runs the shortened word through the step again.
	if strings.HasSuffix(w, "alli") && measure(w[:len(w)-4]) > 0 {
		return step2(w[:len(w)-4] + "al")
	}
	return applyFirstMatch(w, step2Rules)
}

var step2Rules = []rule{
	{"ational", "ate", stemMeasurePositive},
	{"tional", "tion", stemMeasurePositive},
	{"enci", "ence", stemMeasurePositive},
	{"anci", "ance", stemMeasurePositive},
	{"izer", "ize", stemMeasurePositive},
	{"bli", "ble", stemMeasurePositive},
	{"alli", "al", stemMeasurePositive},
	{"entli", "ent", stemMeasurePositive},
	{"eli", "e", stemMeasurePositive},
	{"ousli", "ous", stemMeasurePositive},
	{"ization", "ize", stemMeasurePositive},
	{"ation", "ate", stemMeasurePositive},
	{"ator", "ate", stemMeasurePositive},
	{"alism", "al", stemMeasurePositive},
	{"iveness", "ive", stemMeasurePositive},
	{"fulness", "ful", stemMeasurePositive},
	{"ousness", "ous", stemMeasurePositive},
	{"aliti", "al", stemMeasurePositive},
	{"iviti", "ive", stemMeasurePositive},
	{"biliti", "ble", stemMeasurePositive},
	{"fulli", "ful", stemMeasurePositive},
	// The l stays in the measured stem so that short stems such as "geo"
	// in "geologi" still qualify.
	{"logi", "log", func(word, _ string) bool { return measure(word[:len(word)-3]) > 0 }},
}

// step3 removes or simplifies -ic-, -full, -ness and similar suffixes.
func step3(w string) string { return applyFirstMatch(w, step3Rules) }

var step3Rules = []rule{
	{"icate", "ic", stemMeasurePositive},
	{"ative", "", stemMeasurePositive},
	{"alize", "al", stemMeasurePositive},
	{"iciti", "ic", stemMeasurePositive},
	{"ical", "ic", stemMeasurePositive},
	{"ful", "", stemMeasurePositive},
	{"ness", "", stemMeasurePositive},
}

// step4 strips the remaining suffixes from long stems.
func step4(w string) string { return applyFirstMatch(w, step4Rules) }

var step4Rules = []rule{
	{"al", "", stemMeasureAbove1},
	{"ance", "", stemMeasureAbove1},
	{"ence", "", stemMeasureAbove1},
	{"er", "", stemMeasureAbove1},
	{"ic", "", stemMeasureAbove1},
	{"able", "", stemMeasureAbove1},
	{"ible", "", stemMeasureAbove1},
	{"ant", "", stemMeasureAbove1},
	{"ement", "", stemMeasureAbove1},
	{"ment", "", stemMeasureAbove1},
	{"ent", "", stemMeasureAbove1},
	{"ion", "", func(_, stem string) bool {
		return measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
	}},
	{"ou", "", stemMeasureAbove1},
	{"ism", "", stemMeasureAbove1},
	{"ate", "", stemMeasureAbove1},
	{"iti", "", stemMeasureAbove1},
	{"ous", "", stemMeasureAbove1},
	{"ive", "", stemMeasureAbove1},
	{"ize", "", stemMeasureAbove1},
}

// step5a drops a final e from long stems, keeping it where it marks a short
// vowel sound ("hope" stays, "probate" -> "probat").
func step5a(w string) string {
	if !strings.HasSuffix(w, "e") {
		return w
	}
	stem := w[:len(w)-1]
	if m := measure(stem); m > 1 || (m == 1 && !endsCVC(stem)) {
		return stem
	}
	return w
}

// step5b reduces a final double l on long stems ("controll" -> "control").
func step5b(w string) string {
	if strings.HasSuffix(w, "ll") && measure(w[:len(w)-1]) > 1 {
		return w[:len(w)-1]
	}
	return w
}

// Letter classification for the Porter stemmer. The only subtle letter is y,
// which counts as a consonant at the start of a word or after a vowel, and as
// a vowel after a consonant ("toy" vs "syzygy").

func isVowelLetter(b byte) bool {
	return b == 'a' || b == 'e' || b == 'i' || b == 'o' || b == 'u'
}

// isConsonant reports whether w[i] acts as a consonant. It walks back over a
// run of y's iteratively so that long runs cost linear time, not recursion.
func isConsonant(w string, i int) bool {
	if w[i] != 'y' {
		return !isVowelLetter(w[i])
	}
	first := i
	for first > 0 && w[first-1] == 'y' {
		first--
	}
	// The first y of the run is a consonant at the word start or after a
	// vowel; each following y flips, since it follows the previous y.
	firstIsConsonant := first == 0 || isVowelLetter(w[first-1])
	return firstIsConsonant == ((i-first)%2 == 0)
}

// measure returns Porter's m: the number of vowel-to-consonant transitions,
// i.e. the n in [C](VC)^n[V].
func measure(stem string) int {
	m := 0
	prevConsonant := false
	for i := 0; i < len(stem); i++ {
		consonant := consonantAfter(stem[i], i, prevConsonant)
		if consonant && i > 0 && !prevConsonant {
			m++
		}
		prevConsonant = consonant
	}
	return m
}

// consonantAfter classifies b at position i given whether the previous
// letter was a consonant; it is the single-pass form of isConsonant.
func consonantAfter(b byte, i int, prevConsonant bool) bool {
	switch {
	case isVowelLetter(b):
		return false
	case b == 'y':
		return i == 0 || !prevConsonant
	default:
		return true
	}
}

func containsVowel(stem string) bool {
	prevConsonant := false
	for i := 0; i < len(stem); i++ {
		if !consonantAfter(stem[i], i, prevConsonant) {
			return true
		}
		prevConsonant = true
	}
	return false
}

func endsDoubleConsonant(w string) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

// endsCVC is Porter's *o: consonant-vowel-consonant where the last letter is
// not w, x or y. NLTK also accepts a two-letter vowel-consonant word, with
// no w/x/y exception, so "owing" -> "owe" and "axed" -> "axe".
func endsCVC(w string) bool {
	n := len(w)
	if n >= 3 {
		last := w[n-1]
		return isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) &&
			last != 'w' && last != 'x' && last != 'y'
	}
	return n == 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}
