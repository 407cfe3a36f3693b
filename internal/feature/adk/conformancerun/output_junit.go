// The junit output format: a run as JUnit XML for CI test reports.

package conformancerun

import (
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/junitxml"
)

// WriteJUnit writes r as JUnit XML: one <testsuite> "adk-conformance",
// one <testcase> per case (classname its category, name the case). A FAIL
// has a <failure> whose message is the reason; a SKIP a <skipped> with the
// reason. The findings and notes of a case go into its <system-out>.
func WriteJUnit(w io.Writer, r *Result) error {
	suite := junitxml.Suite{Name: "adk-conformance"}
	for i := range r.Cases {
		c := &r.Cases[i]
		class, name, ok := strings.Cut(c.Name, "/")
		if !ok {
			class, name = "adk-conformance", c.Name
		}
		tc := junitxml.Case{Classname: class, Name: name}
		switch c.Status {
		case Fail:
			tc.Failure = &junitxml.Failure{Type: string(Fail), Message: c.Reason, Body: c.Reason}
			suite.Failures++
		case Skip:
			tc.Skipped = &junitxml.Skipped{Message: c.Reason}
			suite.Skipped++
		}
		var out []string
		for _, l := range findingLines(c) {
			out = append(out, strings.Repeat("  ", l.depth)+l.text)
		}
		for _, n := range c.Notes {
			out = append(out, "note: "+n)
		}
		tc.SystemOut = strings.Join(out, "\n")
		suite.Cases = append(suite.Cases, tc)
		suite.Tests++
	}
	doc := junitxml.Suites{Name: "adkproxy conformance", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Suites: []junitxml.Suite{suite}}
	return junitxml.Write(w, doc)
}
