// A cassette's provenance as ls shows it (a line under its heading, a
// JSON object, a line of the HTML page's summary), and ls --stale: the
// cassettes recorded longer ago than an age.

package runview

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
)

// ProvenanceDoc is a cassette's provenance in the document; null for a
// cassette that records none.
type ProvenanceDoc struct {
	RecordedAt string              `json:"recorded_at"` // RFC 3339, "" when not recorded
	Adkproxy   string              `json:"adkproxy"`
	Upstream   []string            `json:"upstream"`
	Clients    []string            `json:"clients"`
	Frameworks []string            `json:"frameworks"`
	Models     map[string][]string `json:"models"`
}

func provenanceDocOf(p *cassettes.Provenance) *ProvenanceDoc {
	if p == nil {
		return nil
	}
	d := &ProvenanceDoc{Adkproxy: p.Adkproxy, Upstream: orEmpty(p.Upstream), Clients: orEmpty(p.Clients),
		Frameworks: orEmpty(p.Frameworks), Models: map[string][]string{}}
	if !p.RecordedAt.IsZero() {
		d.RecordedAt = p.RecordedAt.UTC().Format(time.RFC3339)
	}
	for asked, answered := range p.Models {
		d.Models[asked] = orEmpty(answered)
	}
	return d
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ProvenanceText is the provenance in one line: when and by which
// adkproxy, the upstream's kind, the clients and frameworks, and each
// model asked for with the versions that answered ("gemini-flash-latest
// → gemini-2.5-flash-001"). A cassette without one says so.
func ProvenanceText(p *cassettes.Provenance) string {
	if p == nil {
		return "provenance not recorded (written before adkproxy recorded it)"
	}
	var parts []string
	if !p.RecordedAt.IsZero() {
		parts = append(parts, "recorded "+p.RecordedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if p.Adkproxy != "" {
		parts = append(parts, "by adkproxy "+p.Adkproxy)
	}
	lists := []struct {
		name string
		vals []string
	}{{"upstream", p.Upstream}, {"clients", p.Clients}, {"frameworks", p.Frameworks}}
	for _, l := range lists {
		if len(l.vals) > 0 {
			parts = append(parts, l.name+" "+strings.Join(l.vals, ", "))
		}
	}
	var models []string
	for _, asked := range slices.Sorted(maps.Keys(p.Models)) {
		m := asked
		if answered := p.Models[asked]; len(answered) > 0 && !(len(answered) == 1 && answered[0] == asked) {
			m += " → " + strings.Join(answered, ", ")
		}
		models = append(models, m)
	}
	if len(models) > 0 {
		parts = append(parts, "models "+strings.Join(models, "; "))
	}
	return textfmt.OneLine(strings.Join(parts, " · "))
}

// Stale is a cassette recorded longer ago than the age asked, or at a time
// it does not record.
type Stale struct {
	Name string `json:"name"`
	File string `json:"file"`
	// RecordedAt is RFC 3339, "" when the cassette does not say.
	RecordedAt string `json:"recorded_at"`
	// AgeDays is whole days since then; -1 when not known.
	AgeDays int `json:"age_days"`
}

// StaleOf lists the run's cassettes recorded more than age before now, and
// those that do not say when they were recorded, in the run's order.
func StaleOf(run recorded.Run, age time.Duration, now time.Time) []Stale {
	out := []Stale{}
	for _, c := range run.Cassettes {
		s := Stale{Name: c.Name, File: c.File, AgeDays: -1}
		if p := c.Provenance; p != nil && !p.RecordedAt.IsZero() {
			if now.Sub(p.RecordedAt) <= age {
				continue
			}
			s.RecordedAt = p.RecordedAt.UTC().Format(time.RFC3339)
			s.AgeDays = int(now.Sub(p.RecordedAt) / (24 * time.Hour))
		}
		out = append(out, s)
	}
	return out
}

// WriteStale prints the stale cassettes, one a line, or that none is.
func WriteStale(w io.Writer, stale []Stale, age string) {
	if len(stale) == 0 {
		fmt.Fprintf(w, "no cassette recorded more than %s ago\n", age)
		return
	}
	for _, s := range stale {
		when := "recorded at an unknown time (no provenance)"
		if s.AgeDays >= 0 {
			when = "recorded " + s.RecordedAt + ", " + textfmt.Plural(s.AgeDays, "day") + " ago"
		}
		fmt.Fprintf(w, "stale %s (%s): %s\n", textfmt.OneLine(s.Name), textfmt.OneLine(s.File), when)
	}
}

// ParseAge reads an age as --stale takes it: a whole number of days (90d)
// or weeks (12w), or a Go duration (36h).
func ParseAge(s string) (time.Duration, error) {
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if n := len(s); n > 1 && unit[s[n-1]] != 0 {
		k, err := strconv.Atoi(s[:n-1])
		if err == nil && k >= 0 && k < 100000 {
			return time.Duration(k) * unit[s[n-1]], nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age: give days (90d), weeks (12w) or a duration (36h)", s)
	}
	return d, nil
}
