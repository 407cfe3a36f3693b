// LLM metrics on a scale (adkproxy.llm_metrics): per invocation the
// definition's prompt rendered over the invocation, num_samples scores with
// rationales, and their mean; the case's score is the mean over the
// invocations that got one.

package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// scaleOptions are the judge settings of a scale metric.
func scaleOptions(cr *scoring.Criterion) (options, error) {
	tmp := *cr
	tmp.Fields = map[string]any{"judge_model_options": cr.Scale.JudgeOptions}
	return readOptions(&tmp)
}

// scaleData is what cr's template sees for invocation i.
func scaleData(c *scoring.Case, i int) scoring.ScalePromptData {
	inv := &c.Actual[i]
	d := scoring.ScalePromptData{UserText: inv.UserText, FinalResponse: inv.FinalResponse,
		ToolCalls: indented(orEmpty(inv.ToolCalls)), ToolResults: indented(orEmpty(inv.ToolResults)),
		ReferenceToolCalls: "[]", State: "{}", FinalState: "{}", Invocation: i + 1, Invocations: len(c.Actual)}
	if i < len(c.Expected) {
		d.Reference = c.Expected[i].FinalResponse
		d.ReferenceToolCalls = indented(orEmpty(c.Expected[i].ToolCalls))
	}
	var input struct {
		State json.RawMessage `json:"state"`
	}
	if json.Unmarshal(c.SessionInput, &input) == nil && len(input.State) > 0 && string(input.State) != "null" {
		var v any
		if json.Unmarshal(input.State, &v) == nil {
			d.State = indented(v)
		}
	}
	var final any
	if len(c.FinalState) > 0 && json.Unmarshal(c.FinalState, &final) == nil && final != nil {
		d.FinalState = indented(final)
	}
	return d
}

func indented(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// scale computes a scale metric.
func (r *caseRun) scale(ctx context.Context, cr *scoring.Criterion, m *scoring.MetricResult) error {
	sm := cr.Scale
	if len(r.c.Actual) == 0 {
		m.Reason = "no invocations"
		return nil
	}
	var sum float64
	scored := 0
	for i := range r.c.Actual {
		def, err := sm.Render(scaleData(r.c, i))
		if err != nil {
			return fmt.Errorf("%s: the prompt does not render for invocation %d: %w", cr.Metric, i+1, err)
		}
		prompt, err := render("scale_metric", "main", map[string]any{"Definition": strings.TrimSpace(def),
			"Min": num(sm.Min), "Max": num(sm.Max)})
		if err != nil {
			return err
		}
		s := scoring.InvocationScore{Index: i}
		var samples []any
		var total float64
		var got []float64
		rationale := ""
		s.Reason, err = r.samples(ctx, i+1, []string{prompt}, func(k int, answer string) {
			score, why := parseScale(answer, sm.Min, sm.Max)
			sample := map[string]any{"sample": k, "score": score, "rationale": why}
			if score != nil {
				total += *score
				got = append(got, *score)
				if rationale == "" {
					rationale = why
				}
			} else {
				sample["answer"] = textfmt.Truncate(answer, 500)
			}
			samples = append(samples, sample)
		})
		if err != nil {
			return err
		}
		if s.Reason == "" {
			s.Details = map[string]any{"samples": samples}
			if len(got) == 0 {
				s.Reason = fmt.Sprintf("invocation %d: no sample gave a score from %s to %s the parser reads ({\"score\": N, \"rationale\": \"…\"})", i+1, num(sm.Min), num(sm.Max))
			} else {
				mean := total / float64(len(got))
				s.Score = scoring.Float(mean)
				sum += mean
				scored++
				note := fmt.Sprintf("invocation %d: %s of %s (mean of %s)", i+1, num(mean), num(sm.Max), textfmt.Plural(len(got), "sample"))
				if rationale != "" {
					note += ": " + short(rationale)
				}
				m.Notes = append(m.Notes, note)
				if !cr.Informational && mean < cr.Threshold {
					s.Reason = note
				}
			}
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	m.Details = map[string]any{"scale": map[string]any{"min": sm.Min, "max": sm.Max}}
	if scored == 0 {
		m.Reason = "no invocation was scored"
		if len(m.PerInvocation) > 0 && m.PerInvocation[0].Reason != "" {
			m.Reason += ": " + m.PerInvocation[0].Reason
		}
		return nil
	}
	m.Score = scoring.Float(sum / float64(scored))
	return nil
}

var (
	scoreJSONRE = regexp.MustCompile(`(?s)\{.*\}`)
	scoreLineRE = regexp.MustCompile(`(?i)"?score"?\s*[:=]\s*"?(-?[0-9]+(?:\.[0-9]+)?)`)
	whyLineRE   = regexp.MustCompile(`(?i)"?rationale"?\s*[:=]\s*(.*)`)
)

// parseScale reads a judge's answer: the JSON object the prompt asks for
// (in a code fence or not), else "score: N" and "rationale: …" lines. A
// score outside min..max is no score.
func parseScale(answer string, lo, hi float64) (*float64, string) {
	var score *float64
	why := ""
	if obj := scoreJSONRE.FindString(answer); obj != "" {
		var v struct {
			Score     any    `json:"score"`
			Rationale string `json:"rationale"`
		}
		if json.Unmarshal([]byte(obj), &v) == nil {
			why = v.Rationale
			switch x := v.Score.(type) {
			case float64:
				score = &x
			case string:
				if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
					score = &f
				}
			}
		}
	}
	if score == nil {
		if m := scoreLineRE.FindStringSubmatch(answer); m != nil {
			if f, err := strconv.ParseFloat(m[1], 64); err == nil {
				score = &f
			}
		}
		if m := whyLineRE.FindStringSubmatch(answer); m != nil && why == "" {
			why = strings.Trim(strings.TrimSpace(m[1]), `",`)
		}
	}
	if score != nil && (*score < lo || *score > hi) {
		return nil, why
	}
	return score, why
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
