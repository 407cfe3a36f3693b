// Replacing personal data and secrets by stable placeholders: the same
// value always gets the same placeholder (<EMAIL_1>, <CARD_1>, …).

package otlpimport

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/pii"
)

// ErrPattern marks a --redact-pattern that is not a regular expression.
var ErrPattern = errors.New("--redact-pattern")

// Replacement is one value replaced: its placeholder, what found it, how
// often it was seen and where first. The value itself is kept only masked.
type Replacement struct {
	Placeholder string `json:"placeholder"`
	Kind        string `json:"kind"`
	Rule        string `json:"rule"`
	Count       int    `json:"count"`
	FirstSeen   string `json:"first_seen"`
	Masked      string `json:"masked"`
}

// redactor holds the placeholders given so far.
type redactor struct {
	patterns []*regexp.Regexp
	byValue  map[string]*Replacement
	perKind  map[string]int
	order    []*Replacement
	keepIDs  bool
}

func newRedactor(patterns []string) (*redactor, error) {
	r := &redactor{byValue: map[string]*Replacement{}, perKind: map[string]int{}}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrPattern, p, err)
		}
		r.patterns = append(r.patterns, re)
	}
	return r, nil
}

// span is a match of a rule in a text.
type match struct {
	start, end int
	kind, rule string
}

// text replaces every finding in s; where says where s is, for the list.
func (r *redactor) text(s, where string) string {
	var found []match
	for _, f := range append(pii.PersonalData(s), pii.Secrets(s)...) {
		found = append(found, match{f.Start, f.End, string(f.Kind), f.Rule})
	}
	for _, re := range r.patterns {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if loc[1] > loc[0] {
				found = append(found, match{loc[0], loc[1], "redacted", "--redact-pattern " + re.String()})
			}
		}
	}
	if len(found) == 0 {
		return s
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].start != found[j].start {
			return found[i].start < found[j].start
		}
		return found[i].end > found[j].end
	})
	var b strings.Builder
	at := 0
	for _, m := range found {
		if m.start < at {
			continue // overlaps one already replaced
		}
		b.WriteString(s[at:m.start])
		b.WriteString(r.placeholder(s[m.start:m.end], m, where))
		at = m.end
	}
	b.WriteString(s[at:])
	return b.String()
}

func (r *redactor) placeholder(value string, m match, where string) string {
	if rep, ok := r.byValue[value]; ok {
		rep.Count++
		return rep.Placeholder
	}
	r.perKind[m.kind]++
	rep := &Replacement{Placeholder: fmt.Sprintf("<%s_%d>", strings.ToUpper(m.kind), r.perKind[m.kind]),
		Kind: m.kind, Rule: m.rule, Count: 1, FirstSeen: where, Masked: mask(value)}
	r.byValue[value] = rep
	r.order = append(r.order, rep)
	return rep.Placeholder
}

// value replaces findings in every string of a decoded JSON value (keys
// of caller data included), so that a rule never cuts through JSON syntax.
func (r *redactor) value(v any, where string) any {
	switch v := v.(type) {
	case string:
		return r.text(v, where)
	case []any:
		for i := range v {
			v[i] = r.value(v[i], where)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[r.text(k, where)] = r.value(val, where)
		}
		return out
	}
	return v
}

// mask shows a value's first and last characters and its length, enough
// to review a replacement without writing the value anywhere.
func mask(s string) string {
	rs := []rune(s)
	if len(rs) <= 4 {
		return strings.Repeat("*", len(rs))
	}
	return fmt.Sprintf("%c%s%c (%d characters)", rs[0], strings.Repeat("*", len(rs)-2), rs[len(rs)-1], len(rs))
}

// machineID matches the ids programs make: a UUID or 16 and more hex
// digits, after an optional short prefix (ADK's invocation ids are
// "e-" and a UUID). Such an id says nothing about a person.
var machineID = regexp.MustCompile(`^(?i)(?:[a-z][a-z0-9]{0,15}[-_])?(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$`)

// idRule is the rule that replaces an id a person may have chosen.
const idRule = "an id that does not look machine-made (--keep-ids keeps it)"

// id is an identifier as written: personal data in it replaced by the
// rules, then, unless keep is set or it looks machine-made, the whole id
// replaced by a placeholder of its kind (<SESSION_ID_1>), since a client
// may name a session after its user.
func (r *redactor) id(s, kind, where string, keep bool) string {
	if s == "" {
		return ""
	}
	if t := r.text(s, where); t != s || keep || machineID.MatchString(s) {
		return t
	}
	return r.placeholder(s, match{kind: kind, rule: idRule}, where)
}
