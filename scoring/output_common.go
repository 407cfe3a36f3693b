// What the output formats share, and the verdict on a whole run.

package scoring

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// What the output writers (table, json, junit, markdown) share: how a score
// and a threshold are shown, which reasons explain a verdict, and the
// overall verdict of a run. Unexported names here start with "out" so they
// never collide with the engine's.

// ResultStatus is the verdict on a whole scoring run, the one `adkproxy
// score` turns into its exit status. By ADK's rule it is made of the cases'
// statuses: PASSED when there is at least one case and every case PASSED;
// FAILED when any case FAILED; NOT_EVALUATED otherwise (nothing to score,
// or a case none of whose criteria could be evaluated). A case PASSED with
// a NOT_EVALUATED criterion beside passed ones passes, as in `adk eval`;
// NotEvaluated lists those criteria so they are not silent. With
// Result.RequireAll every criterion must also have PASSED: one
// NOT_EVALUATED criterion makes the run NOT_EVALUATED. Informational
// metrics (no threshold) are no criteria and never count.
func ResultStatus(r *Result) EvalStatus {
	if r == nil || len(r.Cases) == 0 {
		return NotEvaluated
	}
	status := Passed
	for _, c := range r.Cases {
		statuses := []EvalStatus{c.Status}
		if r.RequireAll {
			statuses = append(statuses, outMetricStatuses(c)...)
		}
		for _, s := range statuses {
			switch s {
			case Passed:
			case Failed:
				return Failed
			default:
				status = NotEvaluated
			}
		}
	}
	return status
}

func outMetricStatuses(c CaseResult) []EvalStatus {
	var out []EvalStatus
	for _, m := range c.Metrics {
		if !m.Informational {
			out = append(out, m.Status)
		}
	}
	return out
}

// outCounts counts cases and criteria by status, and informational
// metrics.
type outCounts struct {
	cases, metrics          map[EvalStatus]int
	nCases, nMetrics, nInfo int
}

func outCount(r *Result) outCounts {
	n := outCounts{cases: map[EvalStatus]int{}, metrics: map[EvalStatus]int{}}
	for _, c := range r.Cases {
		n.cases[outKnown(c.Status)]++
		n.nCases++
		for _, m := range c.Metrics {
			if m.Informational {
				n.nInfo++
				continue
			}
			n.metrics[outKnown(m.Status)]++
			n.nMetrics++
		}
	}
	return n
}

// outKnown maps a status ADK does not define to NOT_EVALUATED, so counts
// always add up.
func outKnown(s EvalStatus) EvalStatus {
	if s == Passed || s == Failed {
		return s
	}
	return NotEvaluated
}

// Summary is the one-line verdict that ends the table: "PASSED: 1 of 1 case
// passed; 4 of 4 criteria passed", with FAILED and NOT_EVALUATED counts
// when there are any and the number of informational metrics; the word
// before the colon is ResultStatus.
func Summary(r *Result) string {
	n := outCount(r)
	part := func(counts map[EvalStatus]int, total int, one, many string) string {
		noun := many
		if total == 1 {
			noun = one
		}
		s := fmt.Sprintf("%d of %d %s passed", counts[Passed], total, noun)
		var rest []string
		if k := counts[Failed]; k > 0 {
			rest = append(rest, fmt.Sprintf("%d FAILED", k))
		}
		if k := counts[NotEvaluated]; k > 0 {
			rest = append(rest, fmt.Sprintf("%d NOT_EVALUATED", k))
		}
		if len(rest) > 0 {
			s += " (" + strings.Join(rest, ", ") + ")"
		}
		return s
	}
	if n.nCases == 0 {
		return ResultStatus(r).String() + ": no case was scored"
	}
	s := ResultStatus(r).String() + ": " + part(n.cases, n.nCases, "case", "cases") + "; " +
		part(n.metrics, n.nMetrics, "criterion", "criteria")
	if n.nInfo > 0 {
		s += fmt.Sprintf("; %d informational", n.nInfo)
	}
	return s
}

// outEvalSetID is the eval set of a case's expectations, else the run's.
func outEvalSetID(r *Result, c CaseResult) string {
	if c.Case != nil && c.Case.EvalSetID != "" {
		return c.Case.EvalSetID
	}
	return r.EvalSetID
}

// outCaseID is the case's id, or "?" for a result without its case.
func outCaseID(c CaseResult) string {
	if c.Case == nil || c.Case.ID == "" {
		return "?"
	}
	return c.Case.ID
}

// outSessionID names the recorded session of a case: "cassette/id", or "".
func outSessionID(c CaseResult) string {
	if c.Case == nil || c.Case.Session == nil {
		return ""
	}
	return c.Case.Session.Cassette + "/" + strconv.Itoa(c.Case.Session.ID)
}

// outCaseFailure is the reason that failed a whole case, or "".
func outCaseFailure(c CaseResult) string {
	if c.Case == nil {
		return ""
	}
	return c.Case.Failure
}

// outNumber shows a score or a threshold: exactly when that is short
// (1, 0.8, 1.455, 63), else rounded to 4 decimals (0.8571, 1234.5679), or
// to 4 significant digits below 1 (0.0000532). A value is never rounded
// to a whole number it is not (0.99996 stays 0.99996, not 1), since a
// threshold is usually one.
func outNumber(f float64) string {
	exact := strconv.FormatFloat(f, 'f', -1, 64)
	if math.IsNaN(f) || math.IsInf(f, 0) || len(exact) <= 6 {
		return exact
	}
	decimals := 4
	if a := math.Abs(f); a < 1 {
		decimals = max(4, 3-int(math.Floor(math.Log10(a))))
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if r, _ := strconv.ParseFloat(s, 64); r != f && r == math.Trunc(r) {
		return exact
	}
	return s
}

// outScore shows a metric's score, "-" when there is none.
func outScore(m MetricResult) string {
	if m.Score == nil {
		return "-"
	}
	return outNumber(*m.Score) + outGolden(m)
}

// outThreshold shows the passing bound: the minimum ("0.8") or, for a
// metric configured with {"max": X}, the maximum ("≤ 5000"); "-" for an
// informational metric.
func outThreshold(m MetricResult) string {
	if m.Informational {
		return "-"
	}
	if m.Max {
		return "≤ " + outNumber(m.Threshold)
	}
	return outNumber(m.Threshold)
}

// outStatus shows a metric's status: ADK's name, or INFO for an
// informational metric.
func outStatus(m MetricResult) string {
	if m.Informational {
		return "INFO"
	}
	return outKnown(m.Status).String()
}

// outReasons explains a metric that did not pass: its own reason, then the
// reason of every invocation that did not pass, each once (a reason
// already told inside an earlier one is not repeated). A PASSED or
// informational metric has none.
func outReasons(m MetricResult) []string {
	if m.Status == Passed || m.Informational {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			return
		}
		for _, earlier := range out {
			if strings.Contains(earlier, s) {
				return
			}
		}
		seen[s] = true
		out = append(out, s)
	}
	add(m.Reason)
	for _, inv := range m.PerInvocation {
		if inv.Status != Passed {
			add(inv.Reason)
		}
	}
	if len(out) == 0 {
		if m.Status == NotEvaluated || m.Score == nil {
			add("not evaluated (no score)")
		} else if m.Max {
			add(fmt.Sprintf("%s above the maximum %s", outScore(m), outNumber(m.Threshold)))
		} else {
			add(fmt.Sprintf("score %s below the threshold %s", outScore(m), outNumber(m.Threshold)))
		}
	}
	return out
}

// outFinite is f when JSON can carry it, else nil.
func outFinite(f *float64) *float64 {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return nil
	}
	return f
}

// writeIndentedJSON writes v as two-space indented JSON without HTML
// escaping (ADK's files keep "<" and ">" as they are), in one write.
func writeIndentedJSON(w io.Writer, v any) error {
	b, err := textfmt.IndentedJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
