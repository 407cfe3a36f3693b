// Criteria that were not evaluated: ADK skips them when it judges a case,
// so they are listed rather than left silent.

package scoring

import (
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// SkippedCriteria lists every criterion that was NOT_EVALUATED, one line
// each in case and criterion order — `case "paris": safety_v1: <why>` —
// for a run that passes all the same (ResultStatus without RequireAll).
// Informational metrics decide nothing and are left out.
func SkippedCriteria(r *Result) []string {
	var out []string
	for _, c := range r.Cases {
		for _, m := range c.Metrics {
			if m.Informational || outKnown(m.Status) != NotEvaluated {
				continue
			}
			why := strings.Join(outReasons(m), "; ")
			out = append(out, fmt.Sprintf("case %q: %s: %s", outCaseID(c), m.Metric, textfmt.Truncate(textfmt.OneLine(why), 400)))
		}
	}
	return out
}
