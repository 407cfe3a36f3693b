// Conformance keying and findings: a model call is keyed as ADK's
// ReplayPlugin keys it, and how its body differs from the recording is
// grouped into findings that a Profile may or may not count as failures.

package conformance

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

// Key places a model call the way ADK's ReplayPlugin does: which user
// message (0-based), which agent, and that agent's model call index within
// the user message (0-based, counting model calls only: tool calls run in
// the server's process and are not on the wire).
type Key struct {
	UserMessage int    `json:"user_message"`
	Agent       string `json:"agent"`
	Call        int    `json:"call"`
}

func (k Key) String() string {
	return fmt.Sprintf("user message %d, agent %s, call %d", k.UserMessage, k.Agent, k.Call)
}

// Finding groups, in the order reports list them.
const (
	GroupSystemInstruction = "system_instruction"
	GroupTools             = "tools"
	GroupGenerationConfig  = "generation_config"
	GroupContents          = "contents"
	// GroupOther: the path (model, streaming or not), the method, the query
	// and request fields outside the four above (toolConfig, safetySettings...).
	GroupOther = "other"
)

// Groups lists every finding group.
var Groups = []string{GroupSystemInstruction, GroupTools, GroupGenerationConfig, GroupContents, GroupOther}

// Group says which finding group a difference's path (matcher's JSON
// path, body fields at the top: "systemInstruction.parts[0].text") is in.
func Group(path string) string {
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	switch top {
	case "systemInstruction":
		return GroupSystemInstruction
	case "tools":
		return GroupTools
	case "generationConfig":
		return GroupGenerationConfig
	case "contents":
		return GroupContents
	}
	return GroupOther
}

// Finding is one group's differences for one model call: what another
// ADK language sends where ADK Python sent the recorded request.
type Finding struct {
	Group string               `json:"group"`
	Diffs []matcher.Difference `json:"diffs"`
}

// GroupDiffs sorts differences into findings, in Groups order, leaving
// out groups without any.
func GroupDiffs(diffs []matcher.Difference) []Finding {
	by := map[string][]matcher.Difference{}
	for _, d := range diffs {
		g := Group(d.Path)
		by[g] = append(by[g], d)
	}
	var out []Finding
	for _, g := range Groups {
		if len(by[g]) > 0 {
			out = append(out, Finding{Group: g, Diffs: by[g]})
		}
	}
	return out
}

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
	StrictProfile = Profile{Name: "strict", Failing: Groups}
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
		if !contains(Groups, g) {
			return Profile{}, fmt.Errorf("profile %q: %q is not default, strict or a finding group (%s)", s, g, strings.Join(Groups, ", "))
		}
		p.Failing = append(p.Failing, g)
	}
	return p, nil
}

// Fails returns the findings the profile counts as failures.
func (p Profile) Fails(findings []Finding) []Finding {
	var out []Finding
	for _, f := range findings {
		if contains(p.Failing, f.Group) {
			out = append(out, f)
		}
	}
	return out
}
