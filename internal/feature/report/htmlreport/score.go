// The page of 'adkproxy score --format html': each case's verdicts next to
// the recorded trajectory and the expected one.

package htmlreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/samplestat"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/scoring"
)

// WriteScores writes a scoring run as a page: the verdict on top, then per
// case its metrics and, per invocation, each metric's score and reason
// beside the recorded timeline (from run, the cassettes scored) and what
// was expected. Invocations that did not pass are open.
func WriteScores(w io.Writer, r *scoring.Result, run recorded.Run) error {
	p := &Page{Title: "adkproxy score", Summary: []string{scoring.Summary(r), scoreRule}}
	if r.EvalSetID != "" {
		p.Title += ": " + r.EvalSetID
	}
	if r.Label != "" {
		p.Title += " (" + r.Label + ")"
	}
	sums := make([]samplestat.Summary, len(r.Cases))
	ids := make([]string, len(r.Cases))
	for i, c := range r.Cases {
		sums[i] = c.Samples
		if c.Case != nil {
			ids[i] = c.Case.ID
		}
	}
	if suite := samplestat.SumSuite(sums, ids); suite != nil {
		p.Summary = append(p.Summary, suite.Lines()...)
	}
	for _, c := range r.Cases {
		b := Block{Title: "case ?", Status: statusClass(c.Status)}
		if c.Case != nil && c.Case.ID != "" {
			b.Title = "case " + c.Case.ID
		}
		if c.Samples.N > 0 {
			class := statusClass(c.Status)
			if c.Samples.Flaky {
				class = "failed"
			}
			b.Changes = append(b.Changes, Change{Kind: "samples", Class: class, Text: c.Samples.Text()})
		}
		for _, m := range c.Metrics {
			text := metricText(m.Score, m.Status, m.Reason)
			if samples, _ := m.Details["samples"].(map[string]any); samples != nil {
				if sc, ok := samples["score"].(samplestat.MeanScore); ok {
					text += "; " + sc.Text()
				}
			}
			b.Changes = append(b.Changes, Change{Kind: m.Metric, Class: statusClass(m.Status), Text: text})
		}
		if c.Case == nil {
			p.Blocks = append(p.Blocks, b)
			continue
		}
		if c.Case.Failure != "" {
			b.Changes = append(b.Changes, Change{Kind: "case", Class: "failed", Text: c.Case.Failure})
		}
		for i := range max(len(c.Case.Actual), len(c.Case.Expected)) {
			b.Invocations = append(b.Invocations, scoredInvocation(&c, i, run))
		}
		p.Blocks = append(p.Blocks, b)
	}
	return write(w, p)
}

// scoreRule is how the verdicts on the page relate, said once on top: an
// invocation's FAILED beside its case's PASSED is not a contradiction.
const scoreRule = "How to read it: a criterion's score for a case is the mean of its invocations' scores (a run " +
	"metric's is its total or statistic over the case), compared with the threshold; an invocation marked FAILED " +
	"scored below the threshold on its own, which lowers the mean but decides nothing by itself. A case PASSES " +
	"when none of its criteria FAILED and at least one PASSED."

func scoredInvocation(c *scoring.CaseResult, i int, run recorded.Run) Invocation {
	inv := Invocation{Title: fmt.Sprintf("invocation %d", i+1), Status: "passed"}
	for _, m := range c.Metrics {
		for _, s := range m.PerInvocation {
			if s.Index != i {
				continue
			}
			inv.Changes = append(inv.Changes, Change{Kind: m.Metric, Class: statusClass(s.Status), Text: metricText(s.Score, s.Status, s.Reason)})
			if s.Status == scoring.Failed || inv.Status == "passed" && s.Status != scoring.Passed {
				inv.Status = statusClass(s.Status)
			}
		}
	}
	inv.Open = inv.Status != "passed"
	if i < len(c.Case.Actual) {
		a := &c.Case.Actual[i]
		inv.Title += ": " + textfmt.Truncate(textfmt.OneLine(a.UserText), 100)
		if v := recordedInvocation(run, c.Case.Session, i); v != nil {
			inv.Sides = append(inv.Sides, timeline("recorded", v, func(int) string { return "same" }))
		} else {
			inv.Sides = append(inv.Sides, expectedSide("recorded", a))
		}
	} else {
		inv.Sides = append(inv.Sides, Side{Label: "recorded", Empty: "not in the recorded session"})
	}
	if c.Case.Expected != nil {
		if i < len(c.Case.Expected) {
			inv.Sides = append(inv.Sides, expectedSide("expected", &c.Case.Expected[i]))
		} else {
			inv.Sides = append(inv.Sides, Side{Label: "expected", Empty: "not in the eval case"})
		}
	}
	return inv
}

// recordedInvocation finds the i-th invocation of a scored session in the run.
func recordedInvocation(run recorded.Run, s *scoring.Session, i int) *recorded.Invocation {
	if s == nil {
		return nil
	}
	for ci := range run.Cassettes {
		if run.Cassettes[ci].Name != s.Cassette {
			continue
		}
		for si := range run.Cassettes[ci].Sessions {
			if vs := &run.Cassettes[ci].Sessions[si]; vs.ID == s.ID && i < len(vs.Invocations) {
				return &vs.Invocations[i]
			}
		}
	}
	return nil
}

// expectedSide shows an invocation that has no steps (an eval case's): the
// user text, the tool calls and the final response.
func expectedSide(label string, inv *scoring.Invocation) Side {
	step := Step{Agent: "expected", Text: inv.FinalResponse, Final: true}
	for _, tc := range inv.ToolCalls {
		step.Calls = append(step.Calls, Item{Text: textfmt.Call(tc.Name, tc.Args, 80), Status: "same"})
	}
	return Side{Label: label, User: inv.UserText, Steps: []Step{step}}
}

func metricText(score *float64, status scoring.EvalStatus, reason string) string {
	s := "no score"
	if score != nil {
		s = fmt.Sprintf("%.3g", *score)
	}
	text := s + " " + status.String()
	if reason != "" {
		text += ": " + reason
	}
	return text
}

// statusClass is a verdict as a class of the page's style.
func statusClass(s scoring.EvalStatus) string {
	return strings.ToLower(s.String())
}
