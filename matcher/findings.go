package matcher

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/wire"
)

// ConformanceKey places a model call the way ADK's ReplayPlugin does:
// which user message (0-based), which agent, and that agent's model call
// index within the user message (0-based, counting model calls only: tool
// calls run in the server's process and are not on the wire).
type ConformanceKey struct {
	UserMessage int    `json:"user_message"`
	Agent       string `json:"agent"`
	Call        int    `json:"call"`
}

// String spells the key out for messages.
func (k ConformanceKey) String() string {
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

// FindingGroups lists every finding group.
var FindingGroups = []string{GroupSystemInstruction, GroupTools, GroupGenerationConfig, GroupContents, GroupOther}

// findingGroup says which finding group a difference's path (body fields
// at the top: "systemInstruction.parts[0].text") is in.
func findingGroup(path string) string {
	top, _, _ := strings.Cut(path, ".")
	top, _, _ = strings.Cut(top, "[")
	if g := wire.Group(top); g != "" {
		return g
	}
	return GroupOther
}

// Finding is one group's differences for one model call: what another
// ADK language sends where ADK Python sent the recorded request.
type Finding struct {
	Group string       `json:"group"`
	Diffs []Difference `json:"diffs"`
}

// GroupDiffs sorts differences into findings, in FindingGroups order,
// leaving out groups without any.
func GroupDiffs(diffs []Difference) []Finding {
	by := map[string][]Difference{}
	for _, d := range diffs {
		g := findingGroup(d.Path)
		by[g] = append(by[g], d)
	}
	var out []Finding
	for _, g := range FindingGroups {
		if len(by[g]) > 0 {
			out = append(out, Finding{Group: g, Diffs: by[g]})
		}
	}
	return out
}
