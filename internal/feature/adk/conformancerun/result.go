// The results of a run: per case a status, the reason and the findings.

package conformancerun

import "github.com/adkproxy/adkproxy/matcher"

// Status is a case's verdict.
type Status string

const (
	// Pass: the session matches ADK Python's and no finding counts as a
	// failure under the profile.
	Pass Status = "PASS"
	// Fail: the first difference is in Reason.
	Fail Status = "FAIL"
	// Skip: the case could not run (its agent cannot load); Reason says why.
	Skip Status = "SKIP"
)

// Result is a whole run.
type Result struct {
	// Corpus and ServerCmd say what ran against what.
	Corpus    string `json:"corpus"`
	ServerCmd string `json:"server_cmd"`
	Profile   string `json:"profile"`
	// IgnoredEventFields were left out of the session comparison.
	IgnoredEventFields []string     `json:"ignored_event_fields,omitempty"`
	Cases              []CaseResult `json:"cases"`
}

// CaseResult is one case's outcome.
type CaseResult struct {
	// Name is <category>/<case>.
	Name        string `json:"name"`
	Agent       string `json:"agent,omitempty"`
	Description string `json:"description,omitempty"`
	Status      Status `json:"status"`
	// Reason says why a case failed (its first difference) or was skipped.
	Reason string `json:"reason,omitempty"`
	// Calls are the model calls whose request body differs from ADK
	// Python's, in the order the server made them.
	Calls []CallFindings `json:"calls,omitempty"`
	// Notes are what else happened: entries the import could not convert,
	// requests the replay could not answer.
	Notes []string `json:"notes,omitempty"`
}

// CallFindings are one model call's findings.
type CallFindings struct {
	Key      matcher.ConformanceKey `json:"key"`
	Findings []matcher.Finding      `json:"findings"`
}

// Counts returns how many cases have each status.
func (r *Result) Counts() map[Status]int {
	n := map[Status]int{Pass: 0, Fail: 0, Skip: 0}
	for _, c := range r.Cases {
		n[c.Status]++
	}
	return n
}

// Failed says whether any case failed.
func (r *Result) Failed() bool { return r.Counts()[Fail] > 0 }

// ByGroup returns the case's findings per group, in
// matcher.FindingGroups order, each difference with the call it is in.
func (c *CaseResult) ByGroup() []GroupFindings {
	by := map[string][]KeyedDiff{}
	for _, call := range c.Calls {
		for _, f := range call.Findings {
			for _, d := range f.Diffs {
				by[f.Group] = append(by[f.Group], KeyedDiff{Key: call.Key, Diff: d.String()})
			}
		}
	}
	var out []GroupFindings
	for _, g := range matcher.FindingGroups {
		if len(by[g]) > 0 {
			out = append(out, GroupFindings{Group: g, Diffs: by[g]})
		}
	}
	return out
}

// GroupFindings are a case's differences in one finding group.
type GroupFindings struct {
	Group string
	Diffs []KeyedDiff
}

// KeyedDiff is one difference and the model call it was found in.
type KeyedDiff struct {
	Key  matcher.ConformanceKey
	Diff string
}
