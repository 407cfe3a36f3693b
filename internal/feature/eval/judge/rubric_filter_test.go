package judge_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// ADK applies a rubric's type only to invocation-level rubrics (the eval
// case's, copied onto every invocation, and the expected invocation's own);
// the criterion's rubrics are all kept, whatever their type. One rubric per
// source and type; the judge's prompts say which were asked about.
func TestRubricTypeFiltersInvocationLevelRubricsOnly(t *testing.T) {
	rubric := func(id, typ string) string {
		s := fmt.Sprintf(`{"rubric_id": %q, "rubric_content": {"text_property": "Property %s."}`, id, id)
		if typ != "" {
			s += fmt.Sprintf(`, "type": %q`, typ)
		}
		return s + "}"
	}
	var crit, caseLevel, inv []string
	for _, typ := range []string{"", "FINAL_RESPONSE_QUALITY", "TOOL_USE_QUALITY", "INSTRUCTION_ADHERENCE"} {
		suffix := strings.ToLower(typ)
		if suffix == "" {
			suffix = "untyped"
		}
		crit = append(crit, rubric("criterion_"+suffix, typ))
		caseLevel = append(caseLevel, rubric("case_"+suffix, typ))
		inv = append(inv, rubric("invocation_"+suffix, typ))
	}
	evalSet := `{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "rubrics": [` + strings.Join(caseLevel, ",") + `], "conversation": [
	  {"user_content": {"parts": [{"text": "Weather in Paris?"}]}, "final_response": {"parts": [{"text": "Sunny."}]},
	   "rubrics": [` + strings.Join(inv, ",") + `]}]}]}`
	exp := loadEvalSet(t, "s.evalset.json", evalSet)
	ec := exp.Cases[0]
	c := scoring.Case{ID: ec.ID, EvalSetID: "s", Rubrics: ec.Rubrics, Expected: ec.Invocations,
		Actual: []scoring.Invocation{{UserText: "Weather in Paris?", FinalResponse: "Sunny in Paris."}}}

	var mu sync.Mutex
	var prompts []string
	fake := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		prompts = append(prompts, prompt)
		mu.Unlock()
		return fakejudge.Reply{Text: "nothing to parse"}
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	j, _ := judgeVia(t, proxy.ModeRecord, testutil.OutDir(t), up.URL)

	for metric, want := range map[string][]string{
		scoring.RubricBasedFinalResponseQualityV1: {
			"criterion_untyped", "criterion_final_response_quality", "criterion_tool_use_quality", "criterion_instruction_adherence",
			"case_untyped", "case_final_response_quality", "invocation_untyped", "invocation_final_response_quality"},
		scoring.RubricBasedToolUseQualityV1: {
			"criterion_untyped", "criterion_final_response_quality", "criterion_tool_use_quality", "criterion_instruction_adherence",
			"case_untyped", "case_tool_use_quality", "invocation_untyped", "invocation_tool_use_quality"},
	} {
		prompts = nil
		config := fmt.Sprintf(`{"criteria": {%q: {"threshold": 0.5, "judge_model_options": {"num_samples": 1}, "rubrics": [%s]}}}`, metric, strings.Join(crit, ","))
		score(t, config, j, []scoring.Case{c})
		if len(prompts) != 1 {
			t.Fatalf("%s: %d judge calls, want 1", metric, len(prompts))
		}
		var got []string
		for _, src := range []string{"criterion", "case", "invocation"} {
			for _, typ := range []string{"untyped", "final_response_quality", "tool_use_quality", "instruction_adherence"} {
				if strings.Contains(prompts[0], "Property "+src+"_"+typ+".") {
					got = append(got, src+"_"+typ)
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s judged rubrics\n %v\nwant\n %v", metric, got, want)
		}
	}
}
