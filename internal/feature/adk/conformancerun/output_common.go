// What every output format says alike: group titles, the summary line,
// how many differences a text report shows.

package conformancerun

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

// groupTitles name the finding groups for people.
var groupTitles = map[string]string{
	matcher.GroupSystemInstruction: "system instruction",
	matcher.GroupTools:             "tool declarations",
	matcher.GroupGenerationConfig:  "generation config",
	matcher.GroupContents:          "contents",
	matcher.GroupOther:             "other",
}

// GroupTitle is a finding group's name for people.
func GroupTitle(g string) string {
	if t, ok := groupTitles[g]; ok {
		return t
	}
	return g
}

// maxShownDiffs bounds the differences a text report lists per group; the
// JSON report has them all.
const maxShownDiffs = 5

// Summary is the one-line verdict: "4 cases: 2 PASS, 1 FAIL, 1 SKIP".
func Summary(r *Result) string {
	n := r.Counts()
	noun := "cases"
	if len(r.Cases) == 1 {
		noun = "case"
	}
	return fmt.Sprintf("%d %s: %d PASS, %d FAIL, %d SKIP", len(r.Cases), noun, n[Pass], n[Fail], n[Skip])
}

// findingLine is one line of a text report's findings: a group heading
// (depth 0) or one of its differences (depth 1).
type findingLine struct {
	depth int
	text  string
}

// findingLines are a case's findings as text lines, at most maxShownDiffs
// differences per group.
func findingLines(c *CaseResult) []findingLine {
	var out []findingLine
	for _, g := range c.ByGroup() {
		out = append(out, findingLine{0, fmt.Sprintf("%s (%d):", GroupTitle(g.Group), len(g.Diffs))})
		for i, d := range g.Diffs {
			if i == maxShownDiffs {
				out = append(out, findingLine{1, fmt.Sprintf("… and %d more (--format json lists them all)", len(g.Diffs)-i)})
				break
			}
			out = append(out, findingLine{1, d.Key.String() + ": " + strings.TrimSpace(d.Diff)})
		}
	}
	return out
}
