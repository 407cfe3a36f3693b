// rubric_based_final_response_quality_v1 and rubric_based_tool_use_quality_v1:
// per invocation, num_samples verdicts on every rubric, the majority per
// rubric, and the pooled mean over all invocations' rubric scores.

package judge

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// partRE finds the parts of a rubric prompt a replay diff names.
var partRE = regexp.MustCompile(`contents\[0\]\.parts\[(\d+)\]`)

// rubricScore is one rubric's verdict (ADK's RubricScore).
type rubricScore struct {
	ID        string
	Score     *float64
	Rationale string
	Verdict   string
}

func (s rubricScore) json() map[string]any {
	out := map[string]any{"rubric_id": s.ID, "score": s.Score, "rationale": s.Rationale}
	if s.Verdict != "" {
		out["verdict"] = s.Verdict
	}
	return out
}

// rubricBased computes the rubric-based metrics as ADK does. A sample
// whose Property, Rationale and Verdict counts differ is discarded; a
// property is matched to a rubric by its ID line, else by its normalised
// text, else dropped. Per invocation each rubric's score is the majority
// of its samples (a tie is 0.0) and the invocation's score their mean; the
// overall score is the mean of every invocation's rubric scores pooled
// (not a mean of means), and details.rubric_scores the mean per rubric.
func (r *caseRun) rubricBased(ctx context.Context, m *scoring.MetricResult) error {
	if len(r.c.Actual) == 0 {
		m.Reason = "no invocations to judge"
		return nil
	}
	// The case's own rubrics apply to every invocation, after the
	// criterion's (ADK copies EvalCase.rubrics onto every actual one, so
	// they are invocation-level rubrics).
	// ADK 1.18 reads the criterion's rubrics only (adkversion.CaseRubrics).
	var caseLevel []rubric
	if len(r.c.Rubrics) > 0 && r.j.adk.CaseRubrics() {
		var err error
		if caseLevel, err = decodeRubrics(r.c.Rubrics, "the eval case's rubrics"); err != nil {
			return err
		}
	}
	// Every invocation's rubrics are checked before the first call: a bad
	// rubric costs no judge call.
	each := make([][]rubric, len(r.c.Actual))
	for i := range r.c.Actual {
		var exp *scoring.Invocation
		if i < len(r.c.Expected) && r.j.adk.CaseRubrics() {
			exp = &r.c.Expected[i]
		}
		var err error
		if each[i], err = rubricsFor(r.metric, r.opts.Rubrics, caseLevel, exp, i+1); err != nil {
			return err
		}
	}
	var pooled []float64
	perRubric := map[string][]float64{}
	var order []string
	for i := range r.c.Actual {
		act, rubrics := &r.c.Actual[i], each[i]
		for _, rb := range rubrics {
			if _, ok := perRubric[rb.ID]; !ok {
				perRubric[rb.ID] = nil
				order = append(order, rb.ID)
			}
		}
		parts, err := r.rubricPrompt(act, rubrics)
		if err != nil {
			return err
		}
		s := scoring.InvocationScore{Index: i}
		votes := make([][]*float64, len(rubrics))
		var rationales [][]string
		var samples []any
		s.Reason, err = r.samples(ctx, i+1, parts, func(k int, answer string) {
			scores, discarded := matchProperties(answer, rubrics, r.j.adk)
			sample := map[string]any{"sample": k}
			var sampleScores []*float64
			var list []any
			rs := make([]string, len(rubrics))
			for j, sc := range scores {
				votes[j] = append(votes[j], sc.Score)
				rs[j] = sc.Rationale
				if sc.Score != nil || sc.Verdict != "" {
					list = append(list, sc.json())
				}
				sampleScores = append(sampleScores, sc.Score)
			}
			rationales = append(rationales, rs)
			sample["score"] = meanOf(sampleScores)
			sample["rubric_scores"] = orEmpty(list)
			if discarded != "" {
				sample["discarded"] = discarded
			}
			samples = append(samples, sample)
		})
		if err != nil {
			return namePart(err, rubrics)
		}
		if s.Reason != "" {
			m.PerInvocation = append(m.PerInvocation, s)
			continue
		}
		var invScores []*float64
		var out []any
		var unmet []string
		for j, rb := range rubrics {
			maj := majority(votes[j])
			rat := ""
			for k, v := range votes[j] {
				if v != nil && maj != nil && *v == *maj {
					rat = rationales[k][j]
					break
				}
			}
			out = append(out, rubricScore{ID: rb.ID, Score: maj, Rationale: rat}.json())
			invScores = append(invScores, maj)
			if maj != nil {
				pooled = append(pooled, *maj)
				perRubric[rb.ID] = append(perRubric[rb.ID], *maj)
				if *maj < 1 {
					unmet = append(unmet, fmt.Sprintf("%q not met: %s", rb.ID, short(rat)))
				}
			}
		}
		s.Score = meanOf(invScores)
		s.Details = map[string]any{"rubric_scores": out, "samples": samples}
		met := 0
		judged := 0
		for _, v := range invScores {
			if v != nil {
				judged++
				if *v == 1 {
					met++
				}
			}
		}
		note := fmt.Sprintf("invocation %d: %d of %s met (majority of %s)", i+1, met,
			textfmt.Plural(len(rubrics), "rubric"), textfmt.Plural(r.opts.NumSamples, "sample"))
		if judged < len(rubrics) {
			note += fmt.Sprintf("; %d without a verdict", len(rubrics)-judged)
		}
		if len(unmet) > 0 {
			note += "; " + strings.Join(unmet, "; ")
		} else if len(out) > 0 {
			if rat, _ := out[0].(map[string]any)["rationale"].(string); rat != "" {
				note += ": " + short(rat)
			}
		}
		if judged > 0 {
			m.Notes = append(m.Notes, note)
		}
		if s.Score == nil {
			s.Reason = fmt.Sprintf("invocation %d: no sample gave a verdict the parser reads (ID:, Property:, Rationale:, Verdict: lines)", i+1)
		} else if *s.Score < 1 {
			s.Reason = note
		}
		m.PerInvocation = append(m.PerInvocation, s)
	}
	if mm, ok := mean(pooled); ok {
		m.Score = &mm
	} else {
		m.Reason = "no rubric got a verdict"
	}
	var overall []any
	for _, id := range order {
		var sc *float64
		if mm, ok := mean(perRubric[id]); ok {
			sc = &mm
		}
		overall = append(overall, map[string]any{"rubric_id": id, "score": sc})
	}
	m.Details = map[string]any{"rubric_scores": overall}
	return nil
}

// rubricPrompt is the request's parts: the instructions and inputs, then
// one part per rubric.
func (r *caseRun) rubricPrompt(act *scoring.Invocation, rubrics []rubric) ([]string, error) {
	response := act.FinalResponse
	if r.metric == scoring.RubricBasedFinalResponseQualityV1 {
		response = responseText(act, r.opts.WithIntermediate)
	}
	return r.j.prompt(r.metric, map[string]string{
		"UserPrompt": act.UserText, "Response": response, "ToolSteps": toolSteps(act)},
		func() map[string]string {
			steps := adkToolSteps(act, r.j.adk)
			return map[string]string{"developer_instructions": adkDeveloperInstructions(act), "tool_declarations": adkToolDeclarations(act),
				"user_input": act.UserText, "response_steps": steps, "tool_usage": steps, "final_response": response,
				"rubrics": adkRubricList(rubrics, r.j.adk)}
		}, rubrics)
}

// matchProperties scores one sample: one rubricScore per rubric, in order
// (no score for a rubric the answer does not name), and why the sample
// was discarded, if it was.
//
// With ADK 1.18's rules (adkversion.LooseRubricAnswers false) a property
// matches a rubric by its text alone, equal up to case and the white space
// around it (ADK 1.18's lower().strip()).
func matchProperties(answer string, rubrics []rubric, v adkversion.Version) ([]rubricScore, string) {
	out := make([]rubricScore, len(rubrics))
	for j, rb := range rubrics {
		out[j].ID = rb.ID
	}
	props, ok := parseProperties(answer, v)
	if !ok {
		return out, "the numbers of Property:, Rationale: and Verdict: lines differ"
	}
	normalize := normalizeProperty
	if !v.LooseRubricAnswers() {
		normalize = func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	}
	byID, byText := map[string]int{}, map[string]int{}
	for j, rb := range rubrics {
		if v.LooseRubricAnswers() {
			byID[rb.ID] = j
		}
		byText[normalize(rb.Text)] = j
	}
	for _, p := range props {
		j, ok := byID[strings.TrimSpace(p.ID)]
		if !ok {
			if j, ok = byText[normalize(p.Property)]; !ok {
				continue // a property the judge made up: dropped, as in ADK
			}
		}
		out[j].Score, out[j].Rationale, out[j].Verdict = p.Score, p.Rationale, strings.TrimSpace(p.Verdict)
	}
	return out, ""
}

// namePart adds to a replay miss the rubrics whose parts differ from the
// recording.
func namePart(err error, rubrics []rubric) error {
	var named []string
	seen := map[int]bool{}
	for _, m := range partRE.FindAllStringSubmatch(err.Error(), -1) {
		k, _ := strconv.Atoi(m[1])
		if k >= 1 && k <= len(rubrics) && !seen[k] {
			seen[k] = true
			named = append(named, strconv.Quote(rubrics[k-1].ID))
		}
	}
	if len(named) == 0 {
		return err
	}
	return fmt.Errorf("rubric %s changed since the judge calls were recorded: %w", strings.Join(named, ", "), err)
}
