package judge_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// An eval set whose second invocation brings rubrics of its own: one for
// tool use (left out of the final-response metric), one for the final
// response.
const rubricEvalSet = `{"eval_set_id": "trip", "eval_cases": [{"eval_id": "two_cities", "conversation": [
  {"user_content": {"parts": [{"text": "Weather in Paris?"}]}, "final_response": {"parts": [{"text": "Sunny in Paris."}]}},
  {"user_content": {"parts": [{"text": "And Oslo?"}]}, "final_response": {"parts": [{"text": "Rain in Oslo."}]},
   "rubrics": [{"rubric_id": "tool_once", "rubric_content": {"text_property": "Calls get_weather once."}, "type": "TOOL_USE_QUALITY"},
               {"rubricId": "mentions_umbrella", "rubricContent": {"textProperty": "Suggests an umbrella."}, "type": "FINAL_RESPONSE_QUALITY"}]}
]}]}`

// votes scripts a rubric judge: the verdicts on rubric id for sample n
// (from 0) of each prompt.
var votes = map[string][]string{
	"names_city":        {"yes", "yes", "no", "yes", "no"}, // majority yes
	"polite":            {"yes", "no", "no", "no", "yes"},  // majority no
	"mentions_umbrella": {"yes", "no", "yes", "no", "N/A"}, // 2 against 2: no
}

func rubricScript(prompt string, seen int) fakejudge.Reply {
	var b strings.Builder
	for _, block := range strings.Split(prompt, "<property>")[1:] {
		id := between(block, "ID: ", "\n")
		v := votes[id][seen%5]
		b.WriteString("ID: " + id + "\nProperty: " + between(block, "Property: ", "\n") + "\nRationale: " + id + " sample " + string(rune('1'+seen)) + "\nVerdict: " + v + "\n")
	}
	return fakejudge.Reply{Text: b.String()}
}

// loadEvalSet is the eval set written as file name, read as score
// --expected reads it.
func loadEvalSet(t *testing.T, name, evalSet string) *scoring.Expected {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(evalSet), 0o644); err != nil {
		t.Fatal(err)
	}
	exp, err := scoring.LoadExpected(path)
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

func rubricCase(t *testing.T) scoring.Case {
	t.Helper()
	exp := loadEvalSet(t, "trip.evalset.json", rubricEvalSet)
	inv := exp.Cases[0].Invocations
	actual := []scoring.Invocation{
		{UserText: inv[0].UserText, FinalResponse: "It is sunny in Paris."},
		{UserText: inv[1].UserText, FinalResponse: "It rains in Oslo."},
	}
	return scoring.Case{ID: "two_cities", EvalSetID: "trip", Actual: actual, Expected: inv}
}

// Rubric scores are majorities over 5 samples per rubric, and the case's
// score is the mean of every invocation's rubric scores pooled: invocation
// 1 has [1, 0] (0.5), invocation 2 [1, 0, 0] (1/3); pooled 2/5 = 0.4, where
// a mean of the means would give 0.41666….
func TestRubricScoresPoolOverInvocations(t *testing.T) {
	fake := &fakejudge.Handler{Script: rubricScript}
	up := httptest.NewServer(fake)
	defer up.Close()
	j, srv := judgeVia(t, proxy.ModeRecord, testutil.OutDir(t), up.URL)
	config := `{"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 0.4, "rubrics": [
	  {"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}},
	  {"rubric_id": "polite", "rubric_content": {"text_property": "Is polite."}}]}}}`
	res, out := score(t, config, j, []scoring.Case{rubricCase(t)})
	srv.Close()
	m := res.Cases[0].Metrics[0]
	if m.Score == nil || *m.Score != 0.4 || m.Status != scoring.Passed {
		t.Fatalf("score %v status %v (%s), want 0.4 PASSED", m.Score, m.Status, m.Reason)
	}
	if got := []float64{*m.PerInvocation[0].Score, *m.PerInvocation[1].Score}; got[0] != 0.5 || got[1] != 1.0/3 {
		t.Errorf("per invocation %v, want [0.5 0.333…]", got)
	}
	if fake.Calls() != 10 {
		t.Errorf("%d judge calls, want 5 samples × 2 invocations", fake.Calls())
	}
	per := m.Details["rubric_scores"].([]any)
	want := map[string]float64{"names_city": 1, "polite": 0, "mentions_umbrella": 0}
	if len(per) != 3 {
		t.Fatalf("rubric_scores %v", per)
	}
	for _, r := range per {
		r := r.(map[string]any)
		if s := r["score"].(*float64); *s != want[r["rubric_id"].(string)] {
			t.Errorf("rubric %v: %v", r["rubric_id"], *s)
		}
	}
	for _, s := range []string{`"rubric_id": "mentions_umbrella"`, `"rationale": "names_city sample 1"`, `"verdict": "N/A"`, `"sample": 5`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("the JSON lacks %s", s)
		}
	}
	if strings.Contains(string(out), "tool_once") {
		t.Error("a TOOL_USE_QUALITY rubric was judged for the final response")
	}
}

func TestRubricErrorsAreNotEvaluated(t *testing.T) {
	fake := &fakejudge.Handler{Script: rubricScript}
	up := httptest.NewServer(fake)
	defer up.Close()
	j, _ := judgeVia(t, proxy.ModeRecord, testutil.OutDir(t), up.URL)
	for name, tc := range map[string]struct{ config, want string }{
		"duplicate id": {`{"criteria": {"rubric_based_final_response_quality_v1": {"threshold": 1, "rubrics": [
		  {"rubric_id": "mentions_umbrella", "rubric_content": {"text_property": "Umbrella."}}]}}}`,
			`invocation 2: rubric id "mentions_umbrella" is used twice`},
		"no rubrics": {`{"criteria": {"rubric_based_final_response_quality_v1": 1}}`, "invocation 1: no rubrics"},
		"bad num_samples": {`{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {"num_samples": 0}}}}`,
			"criteria.final_response_match_v2.judge_model_options.num_samples: want a whole number from 1 to 100"},
		"bad judge_model_config": {`{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {"judge_model_config": {"temprature": 0}}}}}`,
			`criteria.final_response_match_v2.judge_model_options.judge_model_config: json: unknown field "temprature"`},
		"bad rubric": {`{"criteria": {"rubric_based_tool_use_quality_v1": {"threshold": 1, "rubrics": [{"rubric_id": "x"}]}}}`,
			"criteria.rubric_based_tool_use_quality_v1.rubrics[0].rubric_content"},
	} {
		res, _ := score(t, tc.config, j, []scoring.Case{rubricCase(t)})
		m := res.Cases[0].Metrics[0]
		if m.Status != scoring.NotEvaluated || m.Score != nil || !strings.Contains(m.Reason, tc.want) {
			t.Errorf("%s: %v %v %q, want NOT_EVALUATED with %q", name, m.Status, m.Score, m.Reason, tc.want)
		}
	}
	if fake.Calls() != 0 {
		t.Errorf("%d judge calls for criteria that cannot be judged", fake.Calls())
	}
}

// The retry policy: a 429 or 5xx is tried again, up to 3 attempts, each
// recorded in order, and replay meets them in the same order.
func TestJudgeRetryIsRecordedAndReplayed(t *testing.T) {
	statuses := map[string][]int{
		"Paris": {http.StatusTooManyRequests, http.StatusServiceUnavailable, 0}, // succeeds on the 3rd attempt
		"Oslo":  {http.StatusTooManyRequests, http.StatusTooManyRequests, http.StatusTooManyRequests},
		"Rome":  {http.StatusBadRequest}, // not retried
	}
	script := func(prompt string, seen int) fakejudge.Reply {
		for city, st := range statuses {
			if strings.Contains(prompt, "in "+city) && seen < len(st) && st[seen] != 0 {
				return fakejudge.Reply{Status: st[seen]}
			}
		}
		return fakejudge.Reply{Text: `{"reasoning": "ok", "is_the_agent_response_valid": "valid"}`}
	}
	fake := &fakejudge.Handler{Script: script}
	up := httptest.NewServer(fake)
	dir := testutil.OutDir(t)
	config := `{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {"num_samples": 1}}}}`
	cs := []scoring.Case{weatherCase("paris", "Paris", "Sunny in Paris."), weatherCase("oslo", "Oslo", "Rain in Oslo."), weatherCase("rome", "Rome", "Hot in Rome.")}
	j, srv := judgeVia(t, proxy.ModeRecord, dir, up.URL)
	rec, recJSON := score(t, config, j, cs)
	srv.Close()
	up.Close()
	if got := fake.Calls(); got != 3+3+1 {
		t.Errorf("%d calls, want 3 + 3 + 1", got)
	}
	check := func(res *scoring.Result) {
		t.Helper()
		if m := metric(t, res, "paris", scoring.FinalResponseMatchV2); m.Score == nil || *m.Score != 1 {
			t.Errorf("paris: %v %q", m.Score, m.Reason)
		}
		if m := metric(t, res, "oslo", scoring.FinalResponseMatchV2); m.Score != nil || !strings.Contains(m.Reason, "the judge failed (3 attempt(s))") || !strings.Contains(m.Reason, "429") {
			t.Errorf("oslo: %v %q", m.Score, m.Reason)
		}
		if m := metric(t, res, "rome", scoring.FinalResponseMatchV2); m.Score != nil || !strings.Contains(m.Reason, "the judge failed (1 attempt(s))") {
			t.Errorf("rome: %v %q", m.Score, m.Reason)
		}
	}
	check(rec)
	j, srv = judgeVia(t, proxy.ModeReplay, dir, "")
	rep, repJSON := score(t, config, j, cs)
	check(rep)
	if st := srv.Stats(); st.Replayed != 7 || st.Unmatched != 0 {
		t.Errorf("replay stats %+v", st)
	}
	if string(recJSON) != string(repJSON) {
		t.Error("replay differs from the recording")
	}
}

// judge_model_options.judge_model_config, in ADK's snake_case, goes into
// every judge request (and so into its recording).
func TestJudgeModelConfigIsSent(t *testing.T) {
	fake := &fakejudge.Handler{Script: func(string, int) fakejudge.Reply {
		return fakejudge.Reply{Text: `{"is_the_agent_response_valid": "valid"}`}
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	dir := testutil.OutDir(t)
	j, srv := judgeVia(t, proxy.ModeRecord, dir, up.URL)
	config := `{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {
	  "judge_model": "gemini-2.5-pro", "num_samples": 2, "judge_model_config": {"temperature": 0.25, "max_output_tokens": 64}}}}}`
	res, _ := score(t, config, j, []scoring.Case{weatherCase("paris", "Paris", "Sunny.")})
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if m := res.Cases[0].Metrics[0]; m.Score == nil || *m.Score != 1 {
		t.Fatalf("%v %q", m.Score, m.Reason)
	}
	for needle, want := range map[string]int{`"temperature": 0.25`: 2, `"maxOutputTokens": 64`: 2, "/models/gemini-2.5-pro:generateContent": 2} {
		if n := testutil.CountInDir(t, dir, needle); n != want {
			t.Errorf("%s appears %d times in the cassette, want %d", needle, n, want)
		}
	}
}
