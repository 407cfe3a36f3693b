// The evaluation engine: every metric run on every case, and the statuses
// judged from scores and thresholds by ADK's rules.

package scoring

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Evaluate scores every case with every configured metric (cfg nil means
// DefaultConfig) and returns the verdicts in case order, metrics in
// Config.Metrics order. It never fails: a metric that cannot be computed
// (no expectations, an LLM-judged metric, a custom metric command that
// failed or timed out, a cancelled ctx) is NOT_EVALUATED with the reason.
//
// Statuses follow ADK: a metric PASSED when its score ≥ threshold (or
// ≤ the maximum of a {"max": X} criterion), FAILED otherwise, NOT_EVALUATED
// without a score or threshold; each invocation is judged by the same
// threshold. A case is FAILED when it has a Failure or any metric FAILED,
// else PASSED when any metric PASSED, else NOT_EVALUATED.
//
// Result.EvalSetID is the cases' eval set when they all share one, else ""
// (the caller has Expected.EvalSetID); Result.Unpaired is left for the
// caller, who has Pair's report.
func Evaluate(ctx context.Context, cfg *Config, cases []Case) *Result {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if cfg.adk().ConfirmationStartsInvocation() {
		cases = slices.Clone(cases)
		for i := range cases {
			splitConfirmations(&cases[i])
		}
	}
	criteria := cfg.evaluated()
	res := &Result{Cases: make([]CaseResult, len(cases)), ADKVersion: cfg.Adkproxy.ADKVersion}
	workers := min(runtime.GOMAXPROCS(0), len(cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res.Cases[i] = evaluateCase(ctx, cfg, criteria, &cases[i])
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	res.Cases = poolRuns(criteria, res.Cases)
	for i, c := range cases {
		if i == 0 {
			res.EvalSetID = c.EvalSetID
		} else if c.EvalSetID != res.EvalSetID {
			res.EvalSetID = ""
			break
		}
	}
	return res
}

func evaluateCase(ctx context.Context, cfg *Config, criteria []Criterion, c *Case) CaseResult {
	cr := CaseResult{Case: c, Metrics: make([]MetricResult, 0, len(criteria))}
	for i := range criteria {
		cr.Metrics = append(cr.Metrics, evaluateMetric(ctx, cfg, &criteria[i], c))
	}
	cr.Status = caseStatus(c, cr.Metrics)
	return cr
}

// caseStatus is ADK's rule plus Case.Failure.
func caseStatus(c *Case, metrics []MetricResult) EvalStatus {
	if c.Failure != "" {
		return Failed
	}
	status := NotEvaluated
	for _, m := range metrics {
		switch m.Status {
		case Failed:
			return Failed
		case Passed:
			status = Passed
		}
	}
	return status
}

func evaluateMetric(ctx context.Context, cfg *Config, cr *Criterion, c *Case) (m MetricResult) {
	m.Metric = cr.Metric
	m.Threshold, m.Max = cr.Threshold, cr.Max
	m.Informational = cr.Informational
	m.Criterion = cr.Fields
	defer func() {
		if r := recover(); r != nil {
			// ADK: an evaluator that raises leaves its metric NOT_EVALUATED.
			m = MetricResult{Metric: cr.Metric, Threshold: cr.Threshold, Max: cr.Max, Criterion: cr.Fields,
				Informational: cr.Informational, Status: NotEvaluated, Reason: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	if err := ctx.Err(); err != nil {
		m.Status, m.Reason = NotEvaluated, "not evaluated: "+err.Error()
		return m
	}
	if cm, ok := cfg.CustomMetrics[cr.Metric]; ok && !cr.Adkproxy {
		if cfg.NoCode {
			m.Status, m.Reason = NotEvaluated, noCodeReason
			return m
		}
		runCustomMetric(ctx, cfg, &cm, cr, c, &m)
		judge(&m, cr, true)
		return m
	}
	if cr.check != nil {
		evaluateCheck(cr.check, c, &m)
		judge(&m, cr, false)
		return m
	}
	if evaluateJudged(ctx, cfg, cr, c, &m) {
		judge(&m, cr, false)
		return m
	}
	if evaluateVertex(ctx, cfg, cr, c, &m) {
		judge(&m, cr, true)
		return m
	}
	def, computed := metrics[cr.Metric]
	if why, ok := adkNotComputed[cr.Metric]; ok && !cr.Adkproxy {
		m.Status, m.Reason = NotEvaluated, fmt.Sprintf("%s is not computed by adkproxy: %s", cr.Metric, why)
		return m
	} else if isMultiTurnMetric(cr.Metric) && !cr.Adkproxy {
		m.Status, m.Reason = NotEvaluated, fmt.Sprintf("%s is not computed by adkproxy: it needs Vertex AI's Gen AI Evaluation service", cr.Metric)
		return m
	}
	if computed && def.kind == compared {
		switch {
		case c.Failure != "":
			m.Status, m.Reason = NotEvaluated, "not compared: "+c.Failure
			return m
		case c.Expected == nil && c.Scenario != nil:
			m.Status, m.Reason = NotEvaluated, scenarioNoExpected
			return m
		case c.Expected == nil:
			m.Status, m.Reason = NotEvaluated, "no expected invocations: the session was not paired with an eval case or a golden run"
			return m
		}
	}
	if computed && def.kind != run {
		def.compute(cfg, cr, c, &m)
	} else {
		runMetric(cfg, cr, c, &m)
		goldenRunMetric(cfg, cr, c, &m)
	}
	judge(&m, cr, false)
	return m
}

// scenarioNoExpected is why a metric that compares with expected
// invocations is NOT_EVALUATED on a scenario case.
const scenarioNoExpected = "the eval case has a conversation_scenario, no expected conversation to compare with"

// judge sets the statuses a metric left unset (0) from its scores and the
// threshold, and completes the reason of a metric that did not pass.
func judge(m *MetricResult, cr *Criterion, keepStatuses bool) {
	status := func(score *float64) EvalStatus {
		switch {
		case score == nil || cr.Informational:
			return NotEvaluated
		case cr.Max && *score <= cr.Threshold, !cr.Max && *score >= cr.Threshold:
			return Passed
		}
		return Failed
	}
	for i := range m.PerInvocation {
		p := &m.PerInvocation[i]
		if p.Status == 0 || !keepStatuses {
			p.Status = status(p.Score)
		}
		if p.Status == Failed && p.Reason == "" && p.Score != nil {
			// A status the metric gave itself may fail a score the
			// threshold would pass: say so rather than "below".
			if status(p.Score) != Failed {
				p.Reason = fmt.Sprintf("invocation %d: %s reported FAILED with score %s (threshold %s)", p.Index+1, cr.Metric, fmtNum(*p.Score), fmtNum(cr.Threshold))
			} else if cr.Max {
				p.Reason = fmt.Sprintf("invocation %d: %s %s is above the maximum %s", p.Index+1, cr.Metric, fmtNum(*p.Score), fmtNum(cr.Threshold))
			} else {
				p.Reason = fmt.Sprintf("invocation %d: %s %s is below the threshold %s", p.Index+1, cr.Metric, fmtNum(*p.Score), fmtNum(cr.Threshold))
			}
		}
	}
	if m.Status == 0 || !keepStatuses {
		m.Status = status(m.Score)
	}
	if m.Informational && m.Score != nil {
		if m.Reason == "" {
			m.Reason = "informational: reported without a threshold"
		}
		return
	}
	if m.Status == Passed {
		return
	}
	var head string
	switch {
	case m.Score == nil:
		if m.Reason == "" {
			m.Reason = "no score"
		}
		return
	case m.Status == NotEvaluated:
		return
	case status(m.Score) != Failed:
		head = fmt.Sprintf("%s reported FAILED with score %s (threshold %s)", cr.Metric, fmtNum(*m.Score), fmtNum(cr.Threshold))
	case cr.Max:
		head = fmt.Sprintf("%s %s is above the maximum %s", cr.Metric, fmtNum(*m.Score), fmtNum(cr.Threshold))
	default:
		head = fmt.Sprintf("%s %s is below the threshold %s", cr.Metric, fmtNum(*m.Score), fmtNum(cr.Threshold))
	}
	var parts []string
	if m.Reason != "" {
		parts = append(parts, m.Reason)
	}
	shown := 0
	for _, p := range m.PerInvocation {
		if p.Status == Passed || p.Reason == "" {
			continue
		}
		if shown == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, p.Reason)
		shown++
	}
	if len(parts) == 0 {
		m.Reason = head
		return
	}
	m.Reason = head + ": " + strings.Join(parts, "; ")
}

// fmtNum shows a number in a reason: short, at most 4 decimals.
func fmtNum(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if len(s) > 8 {
		s = strings.TrimRight(strings.TrimRight(strconv.FormatFloat(f, 'f', 4, 64), "0"), ".")
	}
	return s
}

// meanOf is ADK's overall score: the plain sequential sum divided by n.
func meanOf(scores []InvocationScore) *float64 {
	if len(scores) == 0 {
		return nil
	}
	sum := 0.0
	n := 0
	for _, s := range scores {
		if s.Score != nil {
			sum += *s.Score
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return Float(sum / float64(n))
}
