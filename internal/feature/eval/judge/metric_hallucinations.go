// hallucinations_v1: each natural-language response split into sentences
// by one judge call, each sentence labelled against what the agent knew by
// another, and the means of the labels.

package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/scoring"
)

// nlResponse is one text the agent wrote and what it knew then.
type nlResponse struct {
	Text    string
	Context string
	// ADKContext is the same as ADK's validator reads it ({context}).
	ADKContext string
}

// nlResponses are the texts hallucinations_v1 judges in an invocation: the
// final response against everything before it, and with intermediate also
// every earlier text against the steps before it.
func nlResponses(inv *scoring.Invocation, intermediate bool, v adkversion.Version) []nlResponse {
	var events []map[string]any
	events = append(events, map[string]any{"author": "user", "text": inv.UserText})
	ctxJSON := func() string {
		b, _ := json.MarshalIndent(events, "", "  ")
		return string(b)
	}
	var out []nlResponse
	final := finalStep(inv)
	calls, stepOf := adkCalls(inv)
	var adk []adkEvent
	for i, st := range inv.Steps {
		if len(st.ToolResults) > 0 {
			events = append(events, map[string]any{"author": st.Agent, "tool_responses": st.ToolResults})
		}
		stepEvents := adkStepEvents(inv, i, calls, stepOf, final, v)
		if len(st.ToolResults) > 0 {
			adk = append(adk, stepEvents[0])
			stepEvents = stepEvents[1:]
		}
		if st.Text != "" && (i == final || intermediate) {
			out = append(out, nlResponse{Text: st.Text, Context: ctxJSON(), ADKContext: adkHallucinationContext(inv, adk)})
		}
		adk = append(adk, stepEvents...)
		ev := map[string]any{"author": st.Agent}
		if st.Text != "" {
			ev["text"] = st.Text
		}
		if len(st.ToolCalls) > 0 {
			ev["tool_calls"] = st.ToolCalls
		}
		events = append(events, ev)
	}
	if final < 0 && inv.FinalResponse != "" {
		// No recorded steps (or none answered in text): the final response
		// against the invocation's calls and results.
		events = append(events, map[string]any{"author": "agent", "tool_calls": orEmpty(inv.ToolCalls), "tool_responses": orEmpty(inv.ToolResults)})
		if len(inv.Steps) == 0 && len(calls) > 0 {
			e := adkEvent{}
			for _, c := range calls {
				e.calls = append(e.calls, c)
			}
			adk = append(adk, e)
		}
		out = append(out, nlResponse{Text: inv.FinalResponse, Context: ctxJSON(), ADKContext: adkHallucinationContext(inv, adk)})
	}
	return out
}

// hallucinations computes hallucinations_v1 as ADK does: one segmenter
// and one validator call per response (num_samples does not apply); a
// response's score is the mean of its sentences' labels that score, the
// invocation's the mean of its responses' scores, the overall score the
// mean of the invocations'; nothing to score → NOT_EVALUATED.
func (r *caseRun) hallucinations(ctx context.Context, m *scoring.MetricResult) error {
	var invScores []*float64
	for i := range r.c.Actual {
		s := scoring.InvocationScore{Index: i}
		var stepScores []*float64
		var details []any
		supported, labelled := 0, 0
		var worst string
		for n, resp := range nlResponses(&r.c.Actual[i], r.opts.Intermediate, r.j.adk) {
			call := func(kind string, parts string) (string, error) {
				return r.j.call(ctx, r.cassette, r.key(i+1, strconv.Itoa(n+1)+"."+kind), &r.opts, []string{parts})
			}
			parts, err := r.j.prompt("hallucinations_v1_segmenter", map[string]string{"Response": resp.Text},
				func() map[string]string { return map[string]string{"response": resp.Text} }, nil)
			if err != nil {
				return err
			}
			prompt := parts[0]
			answer, err := call("segmenter", prompt)
			if err != nil {
				if fatal(err) {
					return err
				}
				s.Reason = fmt.Sprintf("invocation %d: not evaluated: %v", i+1, err)
				break
			}
			sentences := parseSentences(answer)
			if len(sentences) == 0 {
				stepScores = append(stepScores, nil)
				details = append(details, map[string]any{"response": resp.Text, "score": nil, "sentences": []any{}})
				continue
			}
			parts, err = r.j.prompt("hallucinations_v1_validator", map[string]any{"Context": resp.Context, "Sentences": sentences},
				func() map[string]string {
					return map[string]string{"context": resp.ADKContext, "sentences": adkSentences(sentences)}
				}, nil)
			if err == nil {
				prompt = parts[0]
			}
			if err != nil {
				return err
			}
			answer, err = call("validator", prompt)
			if err != nil {
				if fatal(err) {
					return err
				}
				s.Reason = fmt.Sprintf("invocation %d: not evaluated: %v", i+1, err)
				break
			}
			var labels []*float64
			var list []any
			for _, l := range parseLabels(answer) {
				labels = append(labels, l.Score)
				list = append(list, map[string]any{"sentence": l.Sentence, "label": l.Label, "rationale": l.Rationale, "score": l.Score})
				if l.Score != nil {
					labelled++
					if *l.Score == 1 {
						supported++
					} else if worst == "" {
						worst = fmt.Sprintf("%s %q: %s", l.Label, short(l.Sentence), short(l.Rationale))
					}
				}
			}
			step := meanOf(labels)
			stepScores = append(stepScores, step)
			details = append(details, map[string]any{"response": resp.Text, "score": step, "sentences": orEmpty(list)})
		}
		if s.Reason == "" {
			s.Score = meanOf(stepScores)
			s.Details = map[string]any{"responses": orEmpty(details)}
			note := fmt.Sprintf("invocation %d: %d of %d sentences supported", i+1, supported, labelled)
			if worst != "" {
				note += "; " + worst
			}
			m.Notes = append(m.Notes, note)
			switch {
			case s.Score == nil:
				s.Reason = fmt.Sprintf("invocation %d: no sentence got a label the parser reads", i+1)
			case *s.Score < 1:
				s.Reason = note
			}
		}
		invScores = append(invScores, s.Score)
		m.PerInvocation = append(m.PerInvocation, s)
	}
	m.Score = meanOf(invScores)
	if m.Score == nil && m.Reason == "" {
		m.Reason = "no sentence of any response could be judged"
		for _, p := range m.PerInvocation {
			if p.Reason != "" {
				m.Reason += ": " + p.Reason
				break
			}
		}
	}
	return nil
}
