// Which finding groups fail a conformance case.

package conformance

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

// Profile says which finding groups fail a case. The default profile
// counts none (request bodies legitimately differ between ADK languages;
// the session decides), strict counts all.
type Profile struct {
	Name string
	// Failing are the groups that count as failures.
	Failing []string
}

var (
	// DefaultProfile: findings are reported, none fails a case.
	DefaultProfile = Profile{Name: "default"}
	// StrictProfile: any finding fails a case, as ADK's own ReplayPlugin
	// fails on any request difference.
	StrictProfile = Profile{Name: "strict", Failing: matcher.FindingGroups}
)

// ParseProfile reads a profile name (default, strict) or a comma-separated
// list of groups that fail (e.g. "tools,contents").
func ParseProfile(s string) (Profile, error) {
	switch s {
	case "", "default":
		return DefaultProfile, nil
	case "strict":
		return StrictProfile, nil
	}
	p := Profile{Name: s}
	for _, g := range strings.Split(s, ",") {
		g = strings.TrimSpace(g)
		if !contains(matcher.FindingGroups, g) {
			return Profile{}, fmt.Errorf("profile %q: %q is not default, strict or a finding group (%s)", s, g, strings.Join(matcher.FindingGroups, ", "))
		}
		p.Failing = append(p.Failing, g)
	}
	return p, nil
}

// Fails returns the findings the profile counts as failures.
func (p Profile) Fails(findings []matcher.Finding) []matcher.Finding {
	var out []matcher.Finding
	for _, f := range findings {
		if contains(p.Failing, f.Group) {
			out = append(out, f)
		}
	}
	return out
}
