// Repeated runs of an eval set: pairing every run's session with its case,
// and pooling the runs' results per metric as current ADK does.

package scoring

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/samplestat"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

func pairRuns(sessions []Session, exp *Expected, runs int) ([]Case, []string) {
	if exp == nil {
		return pairOnce(sessions, nil)
	}
	ids := sessionIDs(sessions)
	x := indexSessions(sessions, false)
	taken := x.taken
	matched := make([][]int, len(exp.Cases))
	takeRuns := func(i int, key string) {
		for len(matched[i]) < runs {
			j := x.take(key)
			if j < 0 {
				return
			}
			matched[i] = append(matched[i], j)
		}
	}
	for i, ec := range exp.Cases {
		takeRuns(i, nameKey(ec.ID))
	}
	for i, ec := range exp.Cases {
		if first := firstUserText(ec); first != "" {
			takeRuns(i, textKey(first))
		}
	}
	var cases []Case
	var unpaired []string
	for i, ec := range exp.Cases {
		if len(matched[i]) == 0 {
			unpaired = append(unpaired, fmt.Sprintf("eval case %q: no recorded session for any of its %d runs: no cassette is named %q and no session starts with %q",
				ec.ID, runs, ec.ID, textfmt.Truncate(firstUserText(ec), 80)))
			continue
		}
		for k, j := range matched[i] {
			s := &sessions[j]
			c := Case{ID: ec.ID, Session: s, Actual: s.Invocations, Expected: ec.Invocations, EvalSetID: ec.EvalSetID,
				Scenario: ec.Scenario, Rubrics: ec.Rubrics, SessionInput: ec.SessionInput, Run: k + 1, Runs: runs, sessionName: ids[j]}
			c.Failure = c.countFailure()
			if k == 0 && len(matched[i]) < runs {
				missing := fmt.Sprintf("%d of %d runs have no recorded session", runs-len(matched[i]), runs)
				c.Failure = strings.TrimPrefix(c.Failure+"; "+missing, "; ")
			}
			cases = append(cases, c)
		}
	}
	for j, s := range sessions {
		if !taken[j] {
			unpaired = append(unpaired, fmt.Sprintf("session %s (cassette %q, session %d): no eval case left for it (every case has its %d runs)", ids[j], s.Cassette, s.ID, runs))
		}
	}
	return cases, unpaired
}

// poolRuns merges the results of the runs of each case (consecutive
// results with Run > 0 and the same case) into one, as current ADK
// aggregates repeated runs: for each metric, every run's per-invocation
// results pooled and averaged (the mean over all invocations of all runs,
// not the mean of the runs' means), and the status from that mean and the
// threshold. adkproxy's run metrics, whose case score is a total or a
// statistic over the case rather than a mean of invocations, take the mean
// of the runs' scores. A run that failed as a whole (Case.Failure) fails
// the case. The merged Case holds every run's invocations in run order.
func poolRuns(criteria []Criterion, results []CaseResult) []CaseResult {
	var out []CaseResult
	for i := 0; i < len(results); {
		c := results[i].Case
		if c == nil || c.Run == 0 {
			out = append(out, results[i])
			i++
			continue
		}
		j := i + 1
		for j < len(results) && results[j].Case != nil && results[j].Case.Run > 0 &&
			results[j].Case.ID == c.ID && results[j].Case.EvalSetID == c.EvalSetID {
			j++
		}
		out = append(out, poolCase(criteria, results[i:j]))
		i = j
	}
	return out
}

func poolCase(criteria []Criterion, runs []CaseResult) CaseResult {
	first := runs[0].Case
	merged := &Case{ID: first.ID, Session: first.Session, EvalSetID: first.EvalSetID, Scenario: first.Scenario,
		Rubrics: first.Rubrics, SessionInput: first.SessionInput, Runs: first.Runs}
	offsets := make([]int, len(runs))
	var failures []string
	for k, r := range runs {
		offsets[k] = len(merged.Actual)
		merged.Actual = append(merged.Actual, r.Case.Actual...)
		// The expected invocations beside each run's, so the i-th actual
		// still faces its expectation.
		exp := r.Case.Expected
		if len(exp) > len(r.Case.Actual) {
			exp = exp[:len(r.Case.Actual)]
		}
		merged.Expected = append(merged.Expected, exp...)
		for len(merged.Expected) < len(merged.Actual) && r.Case.Expected != nil {
			merged.Expected = append(merged.Expected, Invocation{})
		}
		merged.RunSessions = append(merged.RunSessions, r.Case.Session)
		if r.Case.Failure != "" {
			failures = append(failures, fmt.Sprintf("run %d: %s", r.Case.Run, r.Case.Failure))
		}
	}
	if first.Expected == nil {
		merged.Expected = nil
	}
	merged.Failure = strings.Join(failures, "; ")
	cr := CaseResult{Case: merged}
	for mi := range runs[0].Metrics {
		cr.Metrics = append(cr.Metrics, poolMetric(criterionOf(criteria, runs[0].Metrics[mi].Metric), runs, offsets, mi))
	}
	cr.Status = caseStatus(merged, cr.Metrics)
	passed := make([]bool, len(runs))
	for k, r := range runs {
		passed[k] = r.Status == Passed && r.Case.Failure == ""
	}
	cr.Samples = samplestat.Summarise(passed)
	return cr
}

// metricSamples sums up one metric over a case's runs: the pass-rate
// statistics of its per-run verdicts (samplestat.Summary) and, for the
// runs that scored, the mean score with its seeded bootstrap interval.
func metricSamples(runs []CaseResult, mi int) map[string]any {
	passed := make([]bool, len(runs))
	var scores []float64
	for k, r := range runs {
		rm := r.Metrics[mi]
		passed[k] = rm.Status == Passed
		if rm.Score != nil && !math.IsNaN(*rm.Score) && !math.IsInf(*rm.Score, 0) {
			scores = append(scores, *rm.Score)
		}
	}
	out := map[string]any{"pass": samplestat.Summarise(passed)}
	if m, ok := samplestat.MeanOf(scores); ok {
		out["score"] = m
	}
	return out
}

func criterionOf(criteria []Criterion, metric string) *Criterion {
	for i := range criteria {
		if criteria[i].Metric == metric {
			return &criteria[i]
		}
	}
	return &Criterion{Metric: metric, Informational: true}
}

func poolMetric(cr *Criterion, runs []CaseResult, offsets []int, mi int) MetricResult {
	base := runs[0].Metrics[mi]
	m := MetricResult{Metric: base.Metric, Threshold: base.Threshold, Max: base.Max, Informational: base.Informational,
		Criterion: base.Criterion, Details: map[string]any{}}
	var perRun []any
	var runScores []InvocationScore
	var notes, reasons []string
	for k, r := range runs {
		rm := r.Metrics[mi]
		run := r.Case.Run
		for _, p := range rm.PerInvocation {
			p.Index += offsets[k]
			if p.Reason != "" {
				p.Reason = fmt.Sprintf("run %d: %s", run, p.Reason)
			}
			m.PerInvocation = append(m.PerInvocation, p)
		}
		runScores = append(runScores, InvocationScore{Score: rm.Score})
		perRun = append(perRun, map[string]any{"run": run, "score": outFinite(rm.Score), "eval_status": outKnown(rm.Status), "session_id": sessionName(r.Case.Session)})
		for _, n := range rm.Notes {
			notes = append(notes, fmt.Sprintf("run %d: %s", run, n))
		}
		if rm.Score == nil && rm.Reason != "" {
			reasons = append(reasons, fmt.Sprintf("run %d: %s", run, rm.Reason))
		}
	}
	m.Details["runs"] = perRun
	m.Details["samples"] = metricSamples(runs, mi)
	m.Notes = notes
	if def, ok := adkproxyMetric(m.Metric); (ok && def.kind == run && cr.Adkproxy) || len(m.PerInvocation) == 0 {
		m.Score = meanOf(runScores)
	} else {
		m.Score = meanOf(m.PerInvocation)
	}
	if m.Score == nil {
		m.Reason = strings.Join(reasons, "; ")
	}
	judge(&m, cr, true)
	return m
}

func sessionName(s *Session) string {
	if s == nil {
		return ""
	}
	return s.Cassette + "/" + strconv.Itoa(s.ID)
}
