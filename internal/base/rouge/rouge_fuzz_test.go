package rouge

import "testing"

func FuzzRouge1(f *testing.F) {
	seeds := [][2]string{
		{"the cat sat on the mat", "the cat is on the mat"},
		{"", ""},
		{"İstanbul", "istanbul"},
		{"Running runners ran quickly", "runs running quick"},
		{"สวัสดี", "hello"},
		{"\xff\xfe broken utf-8", "broken"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], true)
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, reference, candidate string, stem bool) {
		score := Rouge1(reference, candidate, stem)
		for name, v := range map[string]float64{
			"precision": score.Precision, "recall": score.Recall, "fmeasure": score.FMeasure,
		} {
			// Written so that NaN fails too.
			if !(v >= 0 && v <= 1) {
				t.Fatalf("Rouge1(%q, %q, %v): %s = %v, outside [0, 1]", reference, candidate, stem, name, v)
			}
		}
		if len(Tokenize(reference, stem)) > 0 {
			if self := Rouge1(reference, reference, stem); self.FMeasure != 1 {
				t.Fatalf("Rouge1(%q, itself, %v).FMeasure = %v, want 1", reference, stem, self.FMeasure)
			}
		}
	})
}

func FuzzStem(f *testing.F) {
	for _, w := range []string{"generalization", "skies", "dies", "yyyy", "syzygy", "agreement", "a", "", "ied", "eed"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, word string) {
		stem := Stem(word) // must not panic on any input
		if isASCIILowercase(word) && !isASCIILowercase(stem) {
			t.Fatalf("Stem(%q) = %q, not ASCII lowercase", word, stem)
		}
	})
}

func isASCIILowercase(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
