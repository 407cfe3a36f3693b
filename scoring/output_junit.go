// The junit output format: a scoring run as JUnit XML for CI test
// reports.

package scoring

import (
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/junitxml"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteJUnit writes r as JUnit XML for CI test reports: one <testsuite>
// named after the eval set, and in it one <testcase> per case and metric,
// classname the eval set id ("adkproxy" when there is none) and name
// "<case> / <metric>".
//
//   - PASSED: an empty testcase.
//   - FAILED: <failure type="FAILED" message="reasons"> with the score, the
//     threshold and every reason in its body.
//   - NOT_EVALUATED: also a <failure>, with type="NOT_EVALUATED", never a
//     <skipped>: a criterion that could not be evaluated fails `adkproxy
//     score` (exit status 1), and a report must not show green where the
//     run failed.
//   - informational (a metric without threshold): a passing testcase whose
//     <system-out> holds the score.
//
// A case failed as a whole (Case.Failure, e.g. unequal invocation counts),
// or not PASSED with no criterion to say why (none configured, only
// informational ones), gets one more testcase named "<case>" carrying that
// failure. Eval cases and sessions that could not be paired are listed in
// the suite's <system-err>. The tests and failures counts of <testsuite>
// and <testsuites> count these testcases; errors and skipped are always 0.
func WriteJUnit(w io.Writer, r *Result) error {
	class := r.EvalSetID
	if class == "" {
		class = "adkproxy"
	}
	suite := junitxml.Suite{Name: class}
	if r.Label != "" {
		suite.Properties = []junitxml.Property{{Name: "label", Value: r.Label}}
	}
	add := func(name string, f *junitxml.Failure) {
		suite.Cases = append(suite.Cases, junitxml.Case{Classname: class, Name: name, Failure: f})
		suite.Tests++
		if f != nil {
			suite.Failures++
		}
	}
	if s := suiteSamplesOf(r); s != nil {
		suite.Properties = append(suite.Properties, junitSuiteSamples(s)...)
	}
	for _, c := range r.Cases {
		id := outCaseID(c)
		if c.Samples.N > 0 { // informational: the case's verdict is its pooled status
			suite.Cases = append(suite.Cases, junitxml.Case{Classname: class, Name: id + " / samples", SystemOut: c.Samples.Text()})
			suite.Tests++
		}
		if f := outCaseFailure(c); f != "" {
			add(id, &junitxml.Failure{Type: Failed.String(), Message: textfmt.OneLine(f), Body: f})
		} else if len(outMetricStatuses(c)) == 0 && outKnown(c.Status) != Passed {
			add(id, &junitxml.Failure{Type: outKnown(c.Status).String(), Message: "no criterion was evaluated", Body: "no criterion was evaluated"})
		}
		for _, m := range c.Metrics {
			if m.Informational {
				suite.Cases = append(suite.Cases, junitxml.Case{Classname: class, Name: id + " / " + m.Metric,
					SystemOut: "informational: score " + outScore(m)})
				suite.Tests++
				continue
			}
			var f *junitxml.Failure
			if outKnown(m.Status) != Passed {
				reasons := outReasons(m)
				body := "score " + outScore(m) + ", threshold " + outThreshold(m) + ": " + outKnown(m.Status).String() + "\n" +
					strings.Join(reasons, "\n")
				f = &junitxml.Failure{Type: outKnown(m.Status).String(), Message: textfmt.OneLine(strings.Join(reasons, "; ")), Body: body}
			}
			add(id+" / "+m.Metric, f)
		}
	}
	if len(r.Unpaired) > 0 {
		suite.SystemErr = "unpaired (not scored):\n" + strings.Join(r.Unpaired, "\n")
	}
	doc := junitxml.Suites{Name: "adkproxy score", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitxml.Suite{suite}}
	return junitxml.Write(w, doc)
}
