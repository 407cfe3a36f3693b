// The parsers of the judge's answers, with ADK's regular expressions and
// their quirks kept on purpose: the same answer scores the same as in ADK.

package judge

import (
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/adkproxy/adkproxy/internal/base/adkversion"
)

// final_response_match_v2 (ADK's _parse_critique).
var (
	validRE   = regexp.MustCompile(`"is_the_agent_response_valid":\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]`)
	invalidRE = regexp.MustCompile(`"is_the_agent_response_invalid":\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]`)
)

// parseValidity reads a final_response_match_v2 answer: 1.0 valid, 0.0
// invalid, nil when no label is found. As in ADK: the first match of the
// "is_the_agent_response_valid" key wins, its label stripped of the
// characters `\`, `s`, `,` and `}` at both ends (Python's
// strip(r"\s,\}") strips characters, not whitespace: "valids" reads
// "valid"), compared case-sensitively; invalid, almost, false,
// partially_valid, partially valid and partially are 0.0; valid and true
// 1.0; anything else nil. Without that key, "is_the_agent_response_invalid"
// is read: true or invalid is 0.0, anything else 1.0.
func parseValidity(answer string) (score *float64, label string) {
	if m := validRE.FindStringSubmatch(answer); m != nil {
		label = strings.Trim(m[1], `\s,}`)
		switch label {
		case "invalid", "almost", "false", "partially_valid", "partially valid", "partially":
			return ptr(0), label
		case "valid", "true":
			return ptr(1), label
		}
		return nil, label
	}
	if m := invalidRE.FindStringSubmatch(answer); m != nil {
		label = strings.Trim(m[1], `\s,}`)
		if label == "true" || label == "invalid" {
			return ptr(0), "invalid"
		}
		return ptr(1), "valid"
	}
	return nil, ""
}

// Rubric-based metrics (ADK's rubric_based_evaluator.py). Go's RE2 has no
// lookbehind: `(?<=Verdict: )(.*)` is `Verdict: (.*)`, group 1.
var (
	propertyRE = regexp.MustCompile(`(?m)^\s*Property: (.*)$`)
	// propertyAnywhereRE is ADK 1.18's: "Property: " anywhere in a line.
	propertyAnywhereRE = regexp.MustCompile(`Property: (.*)`)
	idRE               = regexp.MustCompile(`(?m)^\s*ID: (.*)$`)
	rationaleRE        = regexp.MustCompile(`Rationale: (.*)`)
	verdictRE          = regexp.MustCompile(`Verdict: (.*)`)
)

// propertyVerdict is one property the judge gave a verdict on.
type propertyVerdict struct {
	ID        string // from an "ID:" line before it, "" without one
	Property  string
	Rationale string
	Verdict   string
	Score     *float64
}

// parseProperties reads a rubric answer. ok is false when the numbers of
// Property, Rationale and Verdict lines differ: ADK then discards the whole
// sample. An "ID:" line binds to the next Property line. A verdict scores
// 1.0 when it contains "yes" (any case), else 0.0 when it contains "no" —
// so "not applicable" and "unknown" are 0.0, as in ADK — else nil.
//
// ADK 1.18's parser (adkversion.LooseRubricAnswers false) reads "Property: "
// anywhere in a line, knows no ID lines, and pairs the i-th Property,
// Rationale and Verdict whatever their numbers, as far as the shortest
// list goes.
func parseProperties(answer string, v adkversion.Version) (out []propertyVerdict, ok bool) {
	re := propertyRE
	if !v.LooseRubricAnswers() {
		re = propertyAnywhereRE
	}
	props := re.FindAllStringSubmatchIndex(answer, -1)
	rats := rationaleRE.FindAllStringSubmatch(answer, -1)
	verds := verdictRE.FindAllStringSubmatch(answer, -1)
	if !v.LooseRubricAnswers() {
		n := min(len(props), len(rats), len(verds))
		props, rats, verds = props[:n], rats[:n], verds[:n]
	}
	if len(props) != len(rats) || len(props) != len(verds) {
		return nil, false
	}
	out = make([]propertyVerdict, len(props))
	for i, p := range props {
		out[i] = propertyVerdict{Property: answer[p[2]:p[3]], Rationale: rats[i][1], Verdict: verds[i][1]}
		v := strings.ToLower(verds[i][1])
		switch {
		case strings.Contains(v, "yes"):
			out[i].Score = ptr(1)
		case strings.Contains(v, "no"):
			out[i].Score = ptr(0)
		}
	}
	if !v.LooseRubricAnswers() {
		return out, true
	}
	for _, id := range idRE.FindAllStringSubmatchIndex(answer, -1) {
		for i, p := range props {
			if p[0] > id[0] {
				out[i].ID = answer[id[2]:id[3]]
				break
			}
		}
	}
	return out, true
}

// normalizeProperty is how a property's text is matched to a rubric's when
// the judge gave no known ID: NFKC, curly quotes and dashes as ASCII, runs
// of white space as one space, the characters ` *_`+"`"+`#>-•"'` stripped at
// both ends, lower case.
func normalizeProperty(s string) string {
	s = norm.NFKC.String(s)
	s = asciiPunct.Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(s, " *_`#>-•\"'")
	return strings.ToLower(s)
}

var asciiPunct = strings.NewReplacer("‘", "'", "’", "'", "‚", "'", "‛", "'", "“", `"`, "”", `"`, "„", `"`, "‟", `"`,
	"–", "-", "—", "-", "‒", "-", "―", "-", "−", "-")

// hallucinations_v1 (ADK's hallucinations_v1.py).
var (
	sentenceRE = regexp.MustCompile(`(?s)<sentence>(.*?)</sentence>`)
	// Python's lookahead (?=\nsentence:|\Z) becomes a captured group 6;
	// the next search resumes where it starts.
	labelBlockRE = regexp.MustCompile(`(?si)sentence:(.*?)\nlabel:(.*?)\nrationale:(.*?)\nsupporting_excerpt:(.*?)\ncontradicting_excerpt:(.*?)(\nsentence:|\z)`)
)

// parseSentences reads the segmenter's answer: every <sentence>…</sentence>,
// as written.
func parseSentences(answer string) []string {
	var out []string
	for _, m := range sentenceRE.FindAllStringSubmatch(answer, -1) {
		out = append(out, m[1])
	}
	return out
}

// sentenceLabel is the validator's verdict on one sentence.
type sentenceLabel struct {
	Sentence  string
	Label     string
	Rationale string
	Score     *float64
}

// parseLabels reads the validator's answer: label (stripped, lower case)
// supported or not_applicable is 1.0; unsupported, contradictory or
// disputed 0.0; any other label gives no score.
func parseLabels(answer string) []sentenceLabel {
	var out []sentenceLabel
	for pos := 0; pos < len(answer); {
		m := labelBlockRE.FindStringSubmatchIndex(answer[pos:])
		if m == nil {
			break
		}
		g := func(i int) string { return answer[pos+m[2*i] : pos+m[2*i+1]] }
		l := sentenceLabel{Sentence: strings.TrimSpace(g(1)), Label: strings.ToLower(strings.TrimSpace(g(2))), Rationale: strings.TrimSpace(g(3))}
		switch l.Label {
		case "supported", "not_applicable":
			l.Score = ptr(1)
		case "unsupported", "contradictory", "disputed":
			l.Score = ptr(0)
		}
		out = append(out, l)
		next := pos + m[12]
		if m[12] == m[13] || next <= pos {
			break // \z: the end
		}
		pos = next
	}
	return out
}
