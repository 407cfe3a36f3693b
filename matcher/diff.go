// Explaining a mismatch: how a request differs from a recording, field by
// JSON path, and which recording it comes closest to.

package matcher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// Kind says how a field differs between the recording and the request.
type Kind string

// The kinds of difference.
const (
	Changed Kind = "changed"
	Added   Kind = "added"   // present in the request, not in the recording
	Removed Kind = "removed" // present in the recording, not in the request
)

// Difference is one field that differs, addressed by a JSON path such as
// contents[3].parts[get_weather].functionResponse.response.temp_c.
type Difference struct {
	Path     string `json:"path"`
	Kind     Kind   `json:"kind"`
	Recorded string `json:"recorded,omitempty"`
	Got      string `json:"got,omitempty"`
	// Words is a word diff, for long or multi-line text that changed.
	Words string `json:"words,omitempty"`
}

// String is the difference in one line, for messages.
func (d Difference) String() string {
	switch d.Kind {
	case Added:
		return fmt.Sprintf("%s: added %s", d.Path, d.Got)
	case Removed:
		return fmt.Sprintf("%s: removed (recorded %s)", d.Path, d.Recorded)
	}
	if d.Words != "" {
		return fmt.Sprintf("%s: changed: %s", d.Path, d.Words)
	}
	return fmt.Sprintf("%s: recorded %s, got %s", d.Path, d.Recorded, d.Got)
}

// maxShown bounds how much of one value a difference quotes.
const maxShown = 120

// maxDiffCells is the work one explanation may spend aligning (history
// turns, tool declarations and the words of changed texts: old × new
// elements per alignment, summed over the request). Past it alignments are
// coarser (all removed, then all added) and a changed text's word diff is
// left out, which the difference says.
const maxDiffCells = 1 << 22

// budget is what is left of maxDiffCells for one explanation.
type budget struct {
	cells   int64
	noWords bool // scoring candidates (Closest): no word diffs at all
}

func newBudget() *budget { return &budget{cells: maxDiffCells} }

func diffRequests(recorded, got *cassettes.Request, rv any, rok bool, gv any, gok bool) []Difference {
	return diffRequestsWithin(recorded, got, rv, rok, gv, gok, newBudget())
}

func diffRequestsWithin(recorded, got *cassettes.Request, rv any, rok bool, gv any, gok bool, b *budget) []Difference {
	var out []Difference
	if recorded.Method != got.Method {
		out = append(out, Difference{Path: "method", Kind: Changed, Recorded: recorded.Method, Got: got.Method})
	}
	if recorded.Path != got.Path {
		out = append(out, Difference{Path: "path", Kind: Changed, Recorded: recorded.Path, Got: got.Path})
	}
	if rq, gq := canonicalQuery(recorded.Query), canonicalQuery(got.Query); rq != gq {
		out = append(out, Difference{Path: "query", Kind: Changed, Recorded: quoteOrNone(rq), Got: quoteOrNone(gq)})
	}
	switch {
	case rok && gok:
		out = append(out, diffJSON("", place{}, rv, gv, b)...)
	case !bytes.Equal(recorded.Body, got.Body):
		out = append(out, Difference{Path: "body", Kind: Changed,
			Recorded: describeBytes(recorded.Body), Got: describeBytes(got.Body)})
	}
	return out
}

// DiffJSON compares two decoded JSON values below path (from ParseJSON or
// encoding/json: numbers as json.Number or float64). Objects compare by
// key, numbers by value, arrays by index, except the history (contents)
// and function declarations, which are aligned as sequences (diffseq.go).
func DiffJSON(path string, recorded, got any) []Difference {
	return diffJSON(path, place{}, recorded, got, newBudget())
}

// diffJSON is DiffJSON for values at p (byte fields compare by their
// bytes), charged to b.
func diffJSON(path string, p place, recorded, got any, b *budget) []Difference {
	switch r := recorded.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(r)+len(g))
		for k := range r {
			keys = append(keys, k)
		}
		for k := range g {
			if _, dup := r[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var out []Difference
		for _, k := range keys {
			rv, inR := r[k]
			gv, inG := g[k]
			kp := joinKey(path, k)
			switch {
			case !inG:
				out = append(out, Difference{Path: kp, Kind: Removed, Recorded: render(rv)})
			case !inR:
				out = append(out, Difference{Path: kp, Kind: Added, Got: render(gv)})
			default:
				out = append(out, diffJSON(kp, p.member(k), rv, gv, b)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		if key, paired, labelled := sequenceKey(path, r, g); key != nil {
			return diffSequence(path, p.element(), r, g, key, paired, labelled, b)
		}
		parts := isParts(path, r, g)
		var out []Difference
		for i := 0; i < len(r) || i < len(g); i++ {
			ep := path + "[" + strconv.Itoa(i) + "]"
			if parts {
				ep = partPlace(path, r, g, i)
			}
			switch {
			case i >= len(g):
				out = append(out, Difference{Path: ep, Kind: Removed, Recorded: render(r[i])})
			case i >= len(r):
				out = append(out, Difference{Path: ep, Kind: Added, Got: render(g[i])})
			default:
				out = append(out, diffJSON(ep, p.element(), r[i], g[i], b)...)
			}
		}
		return out
	case json.Number, float64:
		rn, _ := asNumber(recorded)
		if gn, ok := asNumber(got); ok && numbersEqual(rn, gn) {
			return nil
		}
	default:
		if recorded == got { // strings, bools, nil
			return nil
		}
		if rs, rok := recorded.(string); rok && p.holdsBytes() {
			if gs, gok := got.(string); gok && sameBytes(rs, gs) {
				return nil
			}
		}
		if rv, gv, ok := jsonStrings(path, recorded, got); ok {
			return diffJSON(path, place{}, rv, gv, b)
		}
	}
	if path == "" {
		path = "body"
	}
	d := Difference{Path: path, Kind: Changed, Recorded: render(recorded), Got: render(got)}
	if rs, ok := recorded.(string); ok {
		if gs, ok := got.(string); ok && !b.noWords && (len(rs) > longText || len(gs) > longText || strings.Contains(rs, "\n") || strings.Contains(gs, "\n")) {
			d.Words = truncateTo(wordDiffWithin(rs, gs, b), maxWordsShown)
		}
	}
	return []Difference{d}
}

// jsonStrings decodes two strings at a path that holds JSON (holdsJSON)
// when both are JSON objects or arrays, so they are diffed field by field.
func jsonStrings(path string, recorded, got any) (rv, gv any, ok bool) {
	rs, rok := recorded.(string)
	gs, gok := got.(string)
	if !rok || !gok || !holdsJSON(path) {
		return nil, nil, false
	}
	decode := func(s string) (any, bool) {
		if t := strings.TrimSpace(s); t == "" || t[0] != '{' && t[0] != '[' {
			return nil, false
		}
		return ParseJSON([]byte(s))
	}
	if rv, rok = decode(rs); !rok {
		return nil, nil, false
	}
	if gv, gok = decode(gs); !gok {
		return nil, nil, false
	}
	return rv, gv, true
}

// joinKey appends an object key to a JSON path, quoting keys that are not
// plain identifiers.
func joinKey(path, key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// render shows a value compactly as JSON, cut to maxShown characters.
func render(v any) string {
	return truncate(string(appendJSON(nil, v, false))) // numbers as they were sent
}

func truncate(s string) string { return truncateTo(s, maxShown) }

// maxWordsShown bounds a word diff, which shows every changed word: a
// request whose text grew by megabytes must not be echoed whole in the
// error, the log and the report.
const maxWordsShown = 2000

// truncateTo cuts s to n characters, saying how long it was.
func truncateTo(s string, n int) string {
	if cut := textfmt.Truncate(s, n+1); cut != s {
		return cut + fmt.Sprintf(" (%d bytes)", len(s))
	}
	return s
}

func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return strconv.Quote(s)
}

func describeBytes(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	return truncate(strconv.Quote(string(b)))
}

// FormatDiffs renders differences one per line, indented, at most limit of
// them (0 = all), saying how many more there were.
func FormatDiffs(diffs []Difference, limit int) string {
	var b strings.Builder
	for i, d := range diffs {
		if limit > 0 && i == limit {
			fmt.Fprintf(&b, "\n  … and %d more", len(diffs)-limit)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(d.String())
	}
	return b.String()
}

// Closest picks the recorded request most like got: same method and path
// first, then the fewest differences. It returns -1 when there are none.
func (m *Matcher) Closest(recorded []*cassettes.Request, got *cassettes.Request) (int, []Difference) {
	// Candidates are scored by their number of differences, which word
	// diffs do not change: they are left out, and the candidates share one
	// budget, so explaining a miss costs about one diff per recording
	// (once it is spent, alignments are coarser and may rank a candidate
	// lower); the closest is then diffed in full.
	scoring := &budget{cells: maxDiffCells, noWords: true}
	gv, gok := m.Parse(got.Body)
	best, bestScore := -1, 0
	for i, r := range recorded {
		rv, rok := m.Parse(r.Body)
		score := len(diffRequestsWithin(r, got, rv, rok, gv, gok, scoring))
		if r.Method != got.Method {
			score += 1 << 20
		}
		if r.Path != got.Path {
			score += 1 << 16
		}
		if best < 0 || score < bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return -1, nil
	}
	rv, rok := m.Parse(recorded[best].Body)
	return best, diffRequests(recorded[best], got, rv, rok, gv, gok)
}
