// The json output format: a scoring run as ADK's EvalSetResult, with
// Invocations as ADK writes them (also used by the eval set export and
// custom metrics' input).

package scoring

import (
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/internal/base/samplestat"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
)

// JSONOptions fixes what WriteJSON otherwise takes from the clock, for
// reproducible files and tests.
type JSONOptions struct {
	// ResultID is eval_set_result_id; by default
	// "adkproxy_<eval_set_id>_<creation time in seconds>", as ADK makes it
	// with the app name in place of adkproxy.
	ResultID string
	// Name is eval_set_result_name; by default ResultID with "/" as "_".
	Name string
	// Created is creation_timestamp; by default now.
	Created time.Time
}

// WriteJSON writes r as ADK's EvalSetResult, the document `adk eval` saves
// under .adk/eval_history, so ADK's tools and anything reading its results
// can read adkproxy's: snake_case keys, statuses as ADK's integers (1
// PASSED, 2 FAILED, 3 NOT_EVALUATED), invocations as ADK Invocations, and
// one plain JSON object (never a JSON string holding one, the encoding ADK
// wrote up to v1.21).
//
// What ADK has no field for goes into "details" objects, which ADK keeps
// as they are: a metric result's details hold, besides the metric's own,
// "reason" (why it did not pass), "max" (true for a metric configured
// with {"max": X}, whose "threshold" is then that maximum: ADK lets each
// metric interpret its threshold) and "informational" (true for a metric
// reported without a threshold; its status is 3 and its threshold null,
// and it decides nothing); a case result's details hold
// "case_failure", a reason that failed the whole case (such as unequal
// invocation counts), and are left out when there is none. For ADK 1.18
// (Result.ADKVersion), whose models refuse any key of a metric result's
// details but rubric_scores, the rest moves to the case result's details
// (outStrictDetails), which ADK ignores. The deprecated
// fields older ADK releases still require are written too (eval_set_file,
// eval_metric_results as []), so every release since EvalSetResult
// appeared can read the file.
func WriteJSON(w io.Writer, r *Result) error {
	return JSONOptions{}.Write(w, r)
}

// Write is WriteJSON with the options.
func (o JSONOptions) Write(w io.Writer, r *Result) error {
	created := o.Created
	if created.IsZero() {
		created = time.Now()
	}
	ts := float64(created.UnixMicro()) / 1e6
	id := o.ResultID
	if id == "" {
		id = outResultID(r, ts)
	}
	name := o.Name
	if name == "" {
		name = strings.ReplaceAll(id, "/", "_")
	}
	doc := outEvalSetResult{
		EvalSetResultID:   id,
		EvalSetResultName: name,
		EvalSetID:         r.EvalSetID,
		EvalCaseResults:   []outEvalCaseResult{},
		CreationTimestamp: ts,
		Label:             r.Label,
		Samples:           suiteSamplesOf(r),
	}
	v, _ := adkversion.Parse(r.ADKVersion)
	for _, c := range r.Cases {
		ec := outCaseJSON(outEvalSetID(r, c), c)
		if v.StrictResultDetails() {
			outStrictDetails(&ec)
		}
		ec.SessionDetails, ec.UserID = outSessionDetails(r.App, c)
		doc.EvalCaseResults = append(doc.EvalCaseResults, ec)
	}
	return writeIndentedJSON(w, doc)
}

// outPythonFloat writes seconds as Python's repr of time.time() would,
// trimmed to microseconds.
func outPythonFloat(f float64) string {
	s := fmt.Sprintf("%.6f", f)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// The EvalSetResult document (adk:eval_result.py), in ADK's field order.
type outEvalSetResult struct {
	EvalSetResultID   string              `json:"eval_set_result_id"`
	EvalSetResultName string              `json:"eval_set_result_name"`
	EvalSetID         string              `json:"eval_set_id"`
	EvalCaseResults   []outEvalCaseResult `json:"eval_case_results"`
	CreationTimestamp float64             `json:"creation_timestamp"`
	// Label is score --label, a key ADK keeps (its models allow extra).
	Label string `json:"label,omitempty"`
	// Samples sums up the suite's samples (samples_out.go), when cases
	// have them.
	Samples *samplestat.Suite `json:"samples,omitempty"`
}

type outEvalCaseResult struct {
	EvalSetFile                   string                `json:"eval_set_file"` // deprecated; = eval_set_id
	EvalSetID                     string                `json:"eval_set_id"`
	EvalID                        string                `json:"eval_id"`
	FinalEvalStatus               EvalStatus            `json:"final_eval_status"`
	EvalMetricResults             []any                 `json:"eval_metric_results"` // deprecated; always []
	OverallEvalMetricResults      []outEvalMetricResult `json:"overall_eval_metric_results"`
	EvalMetricResultPerInvocation []outPerInvocation    `json:"eval_metric_result_per_invocation"`
	SessionID                     string                `json:"session_id"`
	SessionDetails                *outSession           `json:"session_details"`
	UserID                        string                `json:"user_id"`
	Details                       map[string]any        `json:"details,omitempty"`
}

type outEvalMetricResult struct {
	MetricName string `json:"metric_name"`
	// Threshold is the minimum passing score, or with details.max the
	// maximum.
	Threshold  *float64   `json:"threshold"`
	Score      *float64   `json:"score"`
	EvalStatus EvalStatus `json:"eval_status"`
	// Criterion is the criterion as configured (ADK's
	// EvalMetricResult.criterion), when there is one.
	Criterion map[string]any `json:"criterion,omitempty"`
	Details   map[string]any `json:"details"`
}

type outPerInvocation struct {
	ActualInvocation   *evalset.Invocation   `json:"actual_invocation"`
	ExpectedInvocation *evalset.Invocation   `json:"expected_invocation"`
	EvalMetricResults  []outEvalMetricResult `json:"eval_metric_results"`
}

// outADKInvocation is inv as ADK writes an Invocation, with intermediate
// data in the form ADK's docs show (tool_uses, tool_responses,
// intermediate_responses as [author, parts] pairs): what the JSON result,
// an exported eval set and a custom metric's input all carry. Without
// keepIDs the function call and response ids are left out (they differ
// every run and ADK never compares them).
func outADKInvocation(inv *Invocation, keepIDs bool) *evalset.Invocation {
	if inv == nil {
		return nil
	}
	out := &evalset.Invocation{
		InvocationID: inv.ID,
		UserContent:  evalset.TextContent("user", inv.UserText),
		IntermediateData: evalset.IntermediateData{
			ToolUses:              make([]cassettes.ToolCall, 0, len(inv.ToolCalls)),
			ToolResponses:         make([]cassettes.ToolResult, 0, len(inv.ToolResults)),
			IntermediateResponses: make([]evalset.AuthoredParts, 0, len(inv.IntermediateResponses)),
		},
	}
	if inv.FinalResponse != "" {
		f := evalset.TextContent("model", inv.FinalResponse)
		out.FinalResponse = &f
	}
	for _, c := range inv.ToolCalls {
		if !keepIDs {
			c.ID = ""
		}
		out.IntermediateData.ToolUses = append(out.IntermediateData.ToolUses, c)
	}
	for _, r := range inv.ToolResults {
		if !keepIDs {
			r.ID = ""
		}
		out.IntermediateData.ToolResponses = append(out.IntermediateData.ToolResponses, r)
	}
	for _, t := range inv.IntermediateResponses {
		out.IntermediateData.IntermediateResponses = append(out.IntermediateData.IntermediateResponses,
			evalset.AuthoredParts{Author: t.Author, Parts: []evalset.Part{{Text: t.Text}}})
	}
	return out
}

func outCaseJSON(evalSetID string, c CaseResult) outEvalCaseResult {
	out := outEvalCaseResult{
		EvalSetFile:                   evalSetID,
		EvalSetID:                     evalSetID,
		EvalID:                        outCaseID(c),
		FinalEvalStatus:               outKnown(c.Status),
		EvalMetricResults:             []any{},
		OverallEvalMetricResults:      []outEvalMetricResult{},
		EvalMetricResultPerInvocation: []outPerInvocation{},
		SessionID:                     outSessionID(c),
	}
	if f := outCaseFailure(c); f != "" {
		out.Details = map[string]any{"case_failure": f}
	}
	if c.Samples.N > 0 {
		if out.Details == nil {
			out.Details = map[string]any{}
		}
		out.Details["samples"] = c.Samples
	}
	for _, m := range c.Metrics {
		details := maps.Clone(m.Details)
		if details == nil {
			details = map[string]any{}
		}
		if reasons := outReasons(m); len(reasons) > 0 {
			details["reason"] = strings.Join(reasons, "\n")
		}
		out.OverallEvalMetricResults = append(out.OverallEvalMetricResults, outMetricJSON(m, m.Score, m.Status, details))
	}
	if c.Case == nil {
		return out
	}
	// One entry per actual invocation (ADK requires one); the expected one
	// beside it when there is one at that place.
	for i := range c.Case.Actual {
		p := outPerInvocation{ActualInvocation: outADKInvocation(&c.Case.Actual[i], true), EvalMetricResults: []outEvalMetricResult{}}
		if i < len(c.Case.Expected) {
			p.ExpectedInvocation = outADKInvocation(&c.Case.Expected[i], true)
		}
		for _, m := range c.Metrics {
			for _, s := range m.PerInvocation {
				if s.Index != i {
					continue
				}
				details := maps.Clone(s.Details)
				if details == nil {
					details = map[string]any{}
				}
				if s.Reason != "" {
					details["reason"] = s.Reason
				}
				p.EvalMetricResults = append(p.EvalMetricResults, outMetricJSON(m, s.Score, s.Status, details))
			}
		}
		out.EvalMetricResultPerInvocation = append(out.EvalMetricResultPerInvocation, p)
	}
	return out
}

func outMetricJSON(m MetricResult, score *float64, status EvalStatus, details map[string]any) outEvalMetricResult {
	out := outEvalMetricResult{MetricName: m.Metric, Threshold: outFinite(Float(m.Threshold)), Score: outFinite(score),
		EvalStatus: outKnown(status), Criterion: m.Criterion, Details: details}
	if _, ok := m.Criterion["threshold"]; m.Criterion != nil && !ok && out.Threshold != nil {
		// ADK's BaseCriterion requires a threshold ({"max": X} has none).
		out.Criterion = maps.Clone(m.Criterion)
		out.Criterion["threshold"] = *out.Threshold
	}
	switch {
	case m.Informational:
		out.Threshold = nil
		details["informational"] = true
	case m.Max:
		details["max"] = true
	}
	return out
}
