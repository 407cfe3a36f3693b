// final_response_match_v2: per invocation, num_samples verdicts on whether
// the final response is as valid as the expected one, and their majority.

package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// reasoningRE finds the "reasoning" string of a verdict, for the rationale
// shown (ADK does not read it; the score never depends on it).
var reasoningRE = regexp.MustCompile(`"reasoning"\s*:\s*("(?:[^"\\]|\\.)*")`)

func reasoningOf(answer string) string {
	m := reasoningRE.FindStringSubmatch(answer)
	if m == nil {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(m[1]), &s) != nil {
		return ""
	}
	return s
}

// finalResponseMatch computes final_response_match_v2 as ADK does: the
// user prompt is the expected invocation's, the reference its final
// response; any failed call leaves the invocation NOT_EVALUATED; the
// invocation's score is the majority of its samples (a tie is 0.0, no
// verdict at all is none); the overall score is valid / evaluated.
func (r *caseRun) finalResponseMatch(ctx context.Context, m *scoring.MetricResult) error {
	n := min(len(r.c.Actual), len(r.c.Expected))
	if n == 0 {
		m.Reason = "no invocations to compare"
		return nil
	}
	valid, evaluated := 0, 0
	for i := range n {
		act, exp := &r.c.Actual[i], &r.c.Expected[i]
		response, reference := responseText(act, r.opts.WithIntermediate), responseText(exp, r.opts.WithIntermediate)
		parts, err := r.j.prompt(r.metric, map[string]string{
			"UserPrompt": exp.UserText, "Response": response, "Reference": reference},
			func() map[string]string {
				golden := reference
				if golden == "" {
					golden = "None" // ADK formats the text of no final response, Python's None
				}
				return map[string]string{"prompt": exp.UserText, "response": response, "golden_response": golden}
			}, nil)
		if err != nil {
			return err
		}
		prompt := parts[0]
		s := scoring.InvocationScore{Index: i}
		var scores []*float64
		var samples []any
		var rationales []string
		s.Reason, err = r.samples(ctx, i+1, []string{prompt}, func(k int, answer string) {
			score, label := parseValidity(answer)
			scores = append(scores, score)
			rationales = append(rationales, reasoningOf(answer))
			samples = append(samples, map[string]any{"sample": k, "score": score, "verdict": label, "rationale": rationales[k-1]})
		})
		if err != nil {
			return err
		}
		if s.Reason == "" {
			s.Score = majority(scores)
			s.Details = map[string]any{"samples": samples}
			if s.Score == nil {
				s.Reason = fmt.Sprintf("invocation %d: no sample gave a verdict the parser reads (\"is_the_agent_response_valid\": \"valid\" or \"invalid\")", i+1)
			} else {
				evaluated++
				verdict := "invalid"
				if *s.Score == 1 {
					valid++
					verdict = "valid"
				}
				agree, first := 0, ""
				for k, sc := range scores {
					if sc != nil && *sc == *s.Score {
						if agree++; first == "" {
							first = rationales[k]
						}
					}
				}
				note := fmt.Sprintf("invocation %d: %s (%d of %s)", i+1, verdict, agree, textfmt.Plural(len(scores), "sample"))
				if first != "" {
					note += ": " + short(first)
				}
				m.Notes = append(m.Notes, note)
				if *s.Score < 1 {
					s.Reason = note
				}
			}
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	if evaluated > 0 {
		m.Score = scoring.Float(float64(valid) / float64(evaluated))
	} else {
		m.Reason = "no invocation was evaluated"
		if len(m.PerInvocation) > 0 {
			m.Reason += ": " + m.PerInvocation[0].Reason
		}
	}
	return nil
}
