package rouge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// pyFloat accepts a float written either as a JSON number or as the string
// Python's repr() produced, which keeps every digit of the original value.
type pyFloat float64

func (f *pyFloat) UnmarshalJSON(data []byte) error {
	text := string(data)
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(data, &text); err != nil {
			return err
		}
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return fmt.Errorf("not a float: %s", data)
	}
	*f = pyFloat(v)
	return nil
}

type rougeVectorScore struct {
	Precision pyFloat `json:"precision"`
	Recall    pyFloat `json:"recall"`
	FMeasure  pyFloat `json:"fmeasure"`
}

func (s rougeVectorScore) toScore() Score {
	return Score{Precision: float64(s.Precision), Recall: float64(s.Recall), FMeasure: float64(s.FMeasure)}
}

type rougeVector struct {
	Reference string            `json:"reference"`
	Candidate string            `json:"candidate"`
	Stemmed   *rougeVectorScore `json:"stemmed"`
	Unstemmed *rougeVectorScore `json:"unstemmed"`
}

func TestRouge1Fixture(t *testing.T) {
	f := openFixture(t, "rouge1-vectors.jsonl")
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 1<<20)
	checked, mismatches := 0, 0
	for lineNo := 1; scanner.Scan(); lineNo++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		var v rougeVector
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d: %v", lineNo, err)
		}
		if v.Stemmed == nil || v.Unstemmed == nil {
			t.Fatalf("line %d: missing stemmed or unstemmed scores", lineNo)
		}
		for _, c := range []struct {
			stem bool
			want Score
		}{{true, v.Stemmed.toScore()}, {false, v.Unstemmed.toScore()}} {
			checked++
			// Exact comparison on purpose: the scores must be bit-identical.
			if got := Rouge1(v.Reference, v.Candidate, c.stem); got != c.want {
				mismatches++
				if mismatches <= maxReported {
					t.Errorf("line %d: Rouge1(%q, %q, stem=%v) = %+v, want %+v",
						lineNo, v.Reference, v.Candidate, c.stem, got, c.want)
				}
			}
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	if checked == 0 {
		t.Fatal("fixture held no vectors")
	}
	if mismatches > 0 {
		t.Errorf("%d of %d ROUGE-1 scores differ from rouge_score", mismatches, checked)
	}
	t.Logf("checked %d ROUGE-1 scores (%d vectors, stemmed and unstemmed)", checked, checked/2)
}

func TestRouge1Examples(t *testing.T) {
	const fiveSixths = 5.0 / 6.0
	cases := []struct {
		name                 string
		reference, candidate string
		stem                 bool
		want                 Score
	}{
		{
			name:      "one word differs",
			reference: "the cat sat on the mat", candidate: "the cat is on the mat",
			want: Score{fiveSixths, fiveSixths, fiveSixths},
		},
		{name: "both empty", want: Score{}},
		{name: "empty candidate", reference: "hello", want: Score{}},
		{name: "punctuation only", reference: "?!", candidate: "...", want: Score{}},
		{
			name:      "case and punctuation ignored",
			reference: "Hello, World!", candidate: "hello world",
			want: Score{1, 1, 1},
		},
		{
			name:      "repeats clipped to reference count",
			reference: "the the the the", candidate: "the",
			want: Score{1, 0.25, 0.4},
		},
		{
			// Python lowercases İ to "i" + U+0307, and the combining dot
			// then splits the word in two.
			name:      "Turkish dotted capital I splits the word",
			reference: "İstanbul", candidate: "istanbul",
			want: Score{},
		},
		{
			name:      "Turkish dotted capital I matches the split form",
			reference: "İstanbul", candidate: "i stanbul",
			want: Score{1, 1, 1},
		},
		{
			name:      "Kelvin sign lowercases to k",
			reference: "\u212Aelvin", candidate: "kelvin",
			want: Score{1, 1, 1},
		},
		{
			name:      "non-Latin letters are dropped",
			reference: "สวัสดี", candidate: "สวัสดี",
			want: Score{},
		},
		{
			name:      "stemming merges inflections",
			reference: "running dogs", candidate: "run dog",
			stem: true,
			want: Score{1, 1, 1},
		},
		{
			name:      "short tokens are not stemmed",
			reference: "fly", candidate: "flies",
			stem: true,
			want: Score{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Rouge1(c.reference, c.candidate, c.stem); got != c.want {
				t.Errorf("Rouge1(%q, %q, %v) = %+v, want %+v", c.reference, c.candidate, c.stem, got, c.want)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	got := Tokenize("I've turned device_2 OFF at 10:30.", false)
	want := []string{"i", "ve", "turned", "device", "2", "off", "at", "10", "30"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tokenize = %q, want %q", got, want)
	}
}

func TestUseStemmerFor(t *testing.T) {
	cases := []struct {
		actual, expected string
		want             bool
	}{
		{"hello", "world", true},
		{"", "", true},                // no letters counts as Latin
		{"123 456", "!?", true},       // still no letters
		{"Café crème", "naïve", true}, // accented Latin is Latin
		{"สวัสดี", "hello", false},
		{"hello", "Привет мир", false},
		{"ab пр", "hello", false},    // exactly half is not a majority
		{"abc пр", "hello", true},    // three of five letters are Latin
		{"東京 is big", "hello", true}, // five of seven letters are Latin
		{"東京です ok", "hello", false},  // two of six letters are Latin
	}
	for _, c := range cases {
		if got := UseStemmerFor(c.actual, c.expected); got != c.want {
			t.Errorf("UseStemmerFor(%q, %q) = %v, want %v", c.actual, c.expected, got, c.want)
		}
	}
}

func BenchmarkRouge1(b *testing.B) {
	reference := "The agent checked the weather forecast for London and reported that " +
		"tomorrow will be mostly cloudy with light rain in the afternoon, temperatures " +
		"around fifteen degrees, and a gentle breeze coming from the southwest by evening."
	candidate := "According to the forecast, London will be cloudy tomorrow with some " +
		"light afternoon rain; temperatures should reach about fifteen degrees while a " +
		"gentle southwesterly breeze picks up in the evening hours for most residents."
	b.ReportAllocs()
	for b.Loop() {
		Rouge1(reference, candidate, true)
	}
}
