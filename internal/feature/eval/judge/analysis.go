// The root-cause report: one judge call that drafts, from a run's failed
// cases, a Markdown diagnosis (failure patterns, likely causes, what to
// change), recorded and replayed like the judged metrics.

package judge

import (
	"context"
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// AnalysisCassette is the cassette of the root-cause report's judge call;
// no eval case can be named so ("/" never starts a case's cassette name).
const AnalysisCassette = "_analysis"

// analysisMetric names the report's call in its key.
const analysisMetric = "root_cause_analysis"

// Analysis limits keep the prompt a size a judge reads: texts are cut,
// and at most this many failed cases go in (the first ones, in run order).
const (
	analysisMaxCases = 40
	analysisMaxText  = 600
)

// Analyze drafts the root-cause report of r with model (DefaultModel when
// ""). With no failed case there is nothing to diagnose: it returns a short
// report without calling the judge.
func (j *Judge) Analyze(ctx context.Context, r *scoring.Result, model string) (string, error) {
	if model == "" {
		model = DefaultModel
	}
	data := analysisData{Label: r.Label, Total: len(r.Cases)}
	for _, c := range r.Cases {
		if c.Status == scoring.Failed {
			data.Failed++
			if len(data.Cases) < analysisMaxCases {
				data.Cases = append(data.Cases, analysisCaseOf(c))
			}
		}
	}
	title := "# Root-cause analysis"
	if r.EvalSetID != "" {
		title += ": " + textfmt.OneLine(r.EvalSetID)
	}
	if r.Label != "" {
		title += " (" + textfmt.OneLine(r.Label) + ")"
	}
	if data.Failed == 0 {
		return fmt.Sprintf("%s\n\nNo case failed (%s scored): nothing to diagnose.\n", title, textfmt.Plural(data.Total, "case")), nil
	}
	prompt, err := render("root_cause_analysis", "main", data)
	if err != nil {
		return "", err
	}
	k := key{Case: "analysis", Invocation: 1, Criterion: analysisMetric, Sample: "1"}
	answer, err := j.call(ctx, AnalysisCassette, k, &options{Model: model}, []string{prompt})
	if err != nil {
		return "", err
	}
	cited := fmt.Sprintf("%d of %s failed", data.Failed, textfmt.Plural(data.Total, "case"))
	if len(data.Cases) < data.Failed {
		cited += fmt.Sprintf("; the first %d were given to the judge", len(data.Cases))
	}
	return fmt.Sprintf("%s\n\n_Drafted by the judge model %s from the failed cases (%s); check it against the cases it cites._\n\n%s\n",
		title, model, cited, strings.TrimSpace(answer)), nil
}

type analysisData struct {
	Label         string
	Failed, Total int
	Cases         []analysisCase
}

type analysisCase struct {
	ID, Session, Status, Failure string
	Criteria                     []string
	Turns                        []analysisTurn
}

type analysisTurn struct {
	N                             int
	User, Calls, Answer           string
	Expected                      bool
	ExpectedCalls, ExpectedAnswer string
}

func analysisCaseOf(c scoring.CaseResult) analysisCase {
	out := analysisCase{ID: "?", Status: c.Status.String()}
	if c.Case != nil {
		out.ID, out.Failure = c.Case.ID, cut(c.Case.Failure)
		if s := c.Case.Session; s != nil {
			out.Session = fmt.Sprintf("%s/%d", s.Cassette, s.ID)
		}
	}
	for _, m := range c.Metrics {
		if m.Status != scoring.Failed && m.Status != scoring.NotEvaluated || m.Informational {
			continue
		}
		line := fmt.Sprintf("%s: %s", m.Metric, m.Status)
		if m.Score != nil {
			bound := "threshold"
			if m.Max {
				bound = "maximum"
			}
			line = fmt.Sprintf("%s: score %s, %s %s, %s", m.Metric, num(*m.Score), bound, num(m.Threshold), m.Status)
		}
		var why []string
		for _, s := range append([]string{m.Reason}, invocationReasons(m)...) {
			if s = cut(s); s != "" && !containsAny(why, s) {
				why = append(why, s)
			}
		}
		if len(why) > 0 {
			line += ": " + strings.Join(why, "; ")
		}
		out.Criteria = append(out.Criteria, line)
	}
	if c.Case == nil {
		return out
	}
	for i := range max(len(c.Case.Actual), len(c.Case.Expected)) {
		t := analysisTurn{N: i + 1, Calls: "(none)", Answer: "(no turn)"}
		if i < len(c.Case.Actual) {
			a := &c.Case.Actual[i]
			t.User, t.Calls, t.Answer = cut(a.UserText), calls(a.ToolCalls), cut(a.FinalResponse)
		}
		if i < len(c.Case.Expected) {
			e := &c.Case.Expected[i]
			t.Expected, t.ExpectedCalls, t.ExpectedAnswer = true, calls(e.ToolCalls), cut(e.FinalResponse)
			if t.User == "" {
				t.User = cut(e.UserText)
			}
		}
		out.Turns = append(out.Turns, t)
	}
	return out
}

func invocationReasons(m scoring.MetricResult) []string {
	var out []string
	for _, p := range m.PerInvocation {
		if p.Status != scoring.Passed && p.Reason != "" {
			out = append(out, p.Reason)
		}
	}
	return append(out, m.Notes...)
}

func containsAny(list []string, s string) bool {
	for _, l := range list {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// calls shows tool calls as name(arg=value, …), "(none)" without any.
func calls(cs []cassettes.ToolCall) string {
	if len(cs) == 0 {
		return "(none)"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, textfmt.Call(c.Name, c.Args, 80))
	}
	return cut(strings.Join(parts, ", "))
}

// cut is s on one line, at most analysisMaxText characters.
func cut(s string) string { return textfmt.Truncate(textfmt.OneLine(s), analysisMaxText) }
