// Package adkversion is the one home of the rules that differ between the
// ADK releases a user runs: score --adk-version and the eval config's
// "adkproxy": {"adk_version": …} name the release, and every rule that
// depends on it asks here. docs/scoring.md ("Rules by ADK version") lists
// them.
package adkversion

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is an ADK release, major and minor. The zero Version is the
// newest ADK adkproxy knows, the default.
type Version struct {
	Major, Minor int
}

// Oldest is the oldest release whose rules adkproxy knows: ADK for Python
// 1.18, the one vendored for the tests (../shared/vendor/adk-python).
var Oldest = Version{1, 18}

// Newest names the default: the rules of the newest ADK adkproxy knows.
const Newest = "latest"

// Parse reads "1.18", "1.18.0", "v1.18" or "latest" ("" is latest too).
func Parse(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if t == "" || t == Newest {
		return Version{}, nil
	}
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("ADK version %q: want MAJOR.MINOR (1.18) or %q", s, Newest)
	}
	var nums [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("ADK version %q: want MAJOR.MINOR (1.18) or %q", s, Newest)
		}
		nums[i] = n
	}
	v := Version{nums[0], nums[1]}
	if v.before(Oldest) {
		return Version{}, fmt.Errorf("ADK version %q: adkproxy knows ADK's rules from %s on; give %s or later, or %q", s, Oldest, Oldest, Newest)
	}
	return v, nil
}

// String is "1.18", or "latest" for the zero Version.
func (v Version) String() string {
	if v == (Version{}) {
		return Newest
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

func (v Version) before(o Version) bool {
	if v == (Version{}) {
		return false // the newest is before nothing
	}
	return v.Major < o.Major || v.Major == o.Major && v.Minor < o.Minor
}

// is118 is true for the releases that keep ADK 1.18's rules.
func (v Version) is118() bool { return v.before(Version{1, 19}) }

// StemsAll reports whether response_match_score stems every text: ADK 1.18
// always does; newer releases stem only when both texts are mostly Latin
// (rouge.UseStemmerFor).
func (v Version) StemsAll() bool { return v.is118() }

// StrictResultDetails reports whether ADK's EvalMetricResult.details
// accepts only its own keys (rubric_scores): ADK 1.18's pydantic models
// forbid any other, so adkproxy's reasons and a metric's own details go
// where ADK ignores them (the case result's details).
func (v Version) StrictResultDetails() bool { return v.is118() }

// RubricIDsInPrompts reports whether the rubric judges' prompts list each
// rubric as "*  [id: ID] text" on its own line (newer ADK); ADK 1.18 joins
// the texts with "\n*  ", without ids and without a mark before the first.
func (v Version) RubricIDsInPrompts() bool { return !v.is118() }

// CaseRubrics reports whether the rubric judges use an eval case's own
// rubrics (EvalCase.rubrics) and an expected invocation's
// (Invocation.rubrics) beside the criterion's, as newer ADK does; ADK
// 1.18's judges read the criterion's rubrics only.
func (v Version) CaseRubrics() bool { return !v.is118() }

// TransferReturnsNull reports whether the response of a transfer_to_agent
// call that no recording holds is {"result": null}, as ADK for Python
// 1.18 records it (its tool returns None); by default it is {}.
func (v Version) TransferReturnsNull() bool { return v.is118() }

// LooseRubricAnswers reports whether a rubric judge's answer is read
// loosely, as adkproxy does by default: a Property line at a line's start,
// an ID line naming the rubric, a property's text matched after Unicode
// and punctuation normalisation, and an answer whose Property, Rationale
// and Verdict lines differ in number discarded. ADK 1.18's parser reads
// "Property: " anywhere, no ids, pairs the lines in order as far as the
// shortest list goes, and matches a text up to case and the white space
// around it only.
func (v Version) LooseRubricAnswers() bool { return !v.is118() }

// ConfirmationStartsInvocation reports whether the user's answer to a tool
// confirmation (adk_request_confirmation) starts a new invocation, as in
// ADK 1.18, rather than continuing the one that asked, as newer ADK does.
func (v Version) ConfirmationStartsInvocation() bool { return v.is118() }

// HasIgnoreArgs reports whether tool_trajectory_avg_score's criterion has
// ignore_args (newer ADK); ADK 1.18 accepts the key and always compares
// the args.
func (v Version) HasIgnoreArgs() bool { return !v.is118() }

// MatchTypeByName reports whether tool_trajectory_avg_score's match_type
// may be given by name ("IN_ORDER"); ADK 1.18's enum takes only its number
// (0, 1, 2), and its evaluator fails on a name.
func (v Version) MatchTypeByName() bool { return !v.is118() }
