// Evaluate: a judged criterion on one case, dispatched to its metric, and
// the cassette each case's judge calls go to.

package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// CassetteName is the cassette of a case's judge calls: "<eval_set_id>/
// <eval_id>", or the eval id alone without an eval set. One cassette per
// case keeps replay independent of the order cases are scored in.
func CassetteName(c *scoring.Case) string {
	if c.EvalSetID != "" {
		return c.EvalSetID + "/" + c.ID
	}
	return c.ID
}

// Evaluate implements scoring.Judge.
func (j *Judge) Evaluate(ctx context.Context, cr *scoring.Criterion, c *scoring.Case, m *scoring.MetricResult) {
	read := readOptions
	if cr.Scale != nil {
		read = scaleOptions
	}
	opts, err := read(cr)
	if err != nil {
		m.Reason = err.Error()
		return
	}
	run := &caseRun{j: j, cassette: CassetteName(c), c: c, metric: cr.Metric, threshold: cr.Threshold, opts: opts}
	switch metric := cr.Metric; {
	case cr.Scale != nil:
		err = run.scale(ctx, cr, m)
	case metric == scoring.FinalResponseMatchV2:
		err = run.finalResponseMatch(ctx, m)
	case metric == scoring.RubricBasedFinalResponseQualityV1, metric == scoring.RubricBasedToolUseQualityV1:
		err = run.rubricBased(ctx, m)
	case metric == scoring.HallucinationsV1:
		err = run.hallucinations(ctx, m)
	case metric == scoring.PerTurnUserSimulatorQualityV1:
		err = run.simulatorQuality(ctx, m)
	default:
		err = fmt.Errorf("%s is not an LLM-judged metric", cr.Metric)
	}
	if err != nil {
		// The metric as a whole cannot be trusted: a call replay could not
		// answer, or a bad rubric (ADK raises; the metric is NOT_EVALUATED).
		m.Score, m.PerInvocation, m.Details, m.Notes = nil, nil, nil, nil
		m.Reason = err.Error()
	}
}

// caseRun is one criterion on one case.
type caseRun struct {
	j        *Judge
	cassette string
	c        *scoring.Case
	metric   string
	// threshold decides which turns pass, for the metrics whose score
	// counts passing turns.
	threshold float64
	opts      options
}

func (r *caseRun) key(inv int, sample string) key {
	return key{Case: r.c.ID, Invocation: inv, Criterion: r.metric, Sample: sample}
}

// sample makes call number s (from 1) of invocation inv.
func (r *caseRun) sample(ctx context.Context, inv, s int, parts []string) (string, error) {
	return r.j.call(ctx, r.cassette, r.key(inv, strconv.Itoa(s)), &r.opts, parts)
}

// samples asks the judge num_samples times with parts for invocation inv
// (from 1) and hands each answer, with its sample number, to each. A
// failed call ends the sampling: a fatal one (see fatal) is returned, any
// other leaves the invocation NOT_EVALUATED, as the reason returned says.
func (r *caseRun) samples(ctx context.Context, inv int, parts []string, each func(k int, answer string)) (reason string, err error) {
	for k := 1; k <= r.opts.NumSamples; k++ {
		answer, err := r.sample(ctx, inv, k, parts)
		if err != nil {
			if fatal(err) {
				return "", err
			}
			return fmt.Sprintf("invocation %d: not evaluated: %v", inv, err), nil
		}
		each(k, answer)
	}
	return "", nil
}

// fatal says whether a call's error makes the whole metric NOT_EVALUATED
// (replay could not answer it) rather than only its invocation (the judge
// failed, as ADK treats it).
func fatal(err error) bool {
	return errors.Is(err, ErrNotRecorded) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// responseText is the response judged of inv: its final response, or with
// include_intermediate_responses_in_final (withIntermediate) every text
// it wrote — its intermediate responses, then the final one — joined by
// line breaks, as ADK joins them.
func responseText(inv *scoring.Invocation, withIntermediate bool) string {
	if !withIntermediate {
		return inv.FinalResponse
	}
	var texts []string
	for _, t := range inv.IntermediateResponses {
		if t.Text != "" {
			texts = append(texts, t.Text)
		}
	}
	if inv.FinalResponse != "" {
		texts = append(texts, inv.FinalResponse)
	}
	return strings.Join(texts, "\n")
}

// toolSteps is an invocation's tool calls and results as indented JSON, for
// prompts.
func toolSteps(inv *scoring.Invocation) string {
	v := map[string]any{"tool_calls": orEmpty(inv.ToolCalls), "tool_responses": orEmpty(inv.ToolResults)}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// short cuts a rationale for a note.
func short(s string) string { return textfmt.Truncate(textfmt.OneLine(s), 200) }
