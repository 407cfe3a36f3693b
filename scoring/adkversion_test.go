package scoring

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/rouge"
	"github.com/adkproxy/adkproxy/internal/testing/adkpytest"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// adkRouge is ADK 1.18's own response_match_score for each [reference,
// candidate] pair read from stdin, one F-measure per line.
const adkRouge = `
import json, sys
from google.adk.evaluation.final_response_match_v1 import _calculate_rouge_1_scores
for reference, candidate in json.load(sys.stdin):
    print(repr(_calculate_rouge_1_scores(candidate, reference).fmeasure))
`

// stemPairs are texts where stemming decides: mostly non-Latin with Latin
// words that stem (the 0.5455 against 0.3636), and Latin ones.
var stemPairs = [][2]string{
	{"東京は晴れ、気温は二十五度。Sunny sky, walking weather.", "東京は晴れです。気温は二十五度、散歩日和です。Sunny skies."},
	{"run", "running привет мир друзья"},
	{"Привет мир друзья, cities", "Привет мир друзья, city"},
	{"I have set the device_2 status to off.", "I have turned off device_2."},
}

// TestResponseMatchFollowsADKVersion (issue 40 defect 4): with adk_version
// 1.18 response_match_score is ADK 1.18's own score (always stemmed) on
// texts mostly not Latin, and by default newer ADK's (stemmed only when
// both are mostly Latin) — checked against the vendored ADK and the shared
// ROUGE vectors.
func TestResponseMatchFollowsADKVersion(t *testing.T) {
	pairs := append([][2]string(nil), stemPairs...)
	in, _ := json.Marshal(pairs)
	var adk []float64
	for _, line := range strings.Fields(string(adkpytest.Run(t, adkRouge, in))) {
		f, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatal(err)
		}
		adk = append(adk, f)
	}
	differ := 0
	for i, p := range pairs {
		c := Case{Actual: []Invocation{{FinalResponse: p[1]}}, Expected: []Invocation{{FinalResponse: p[0]}}}
		_, old := engEval(t, `{"criteria": {"response_match_score": 0.5}, "adkproxy": {"adk_version": "1.18"}}`, c)
		if got := *old[ResponseMatchScore].Score; got != adk[i] {
			t.Errorf("1.18, %q vs %q: %v, ADK 1.18 says %v", p[0], p[1], got, adk[i])
		}
		_, latest := engEval(t, `{"criteria": {"response_match_score": 0.5}}`, c)
		want := rouge.Rouge1(p[0], p[1], rouge.UseStemmerFor(p[1], p[0])).FMeasure
		if got := *latest[ResponseMatchScore].Score; got != want {
			t.Errorf("latest, %q vs %q: %v, want %v", p[0], p[1], got, want)
		}
		if *latest[ResponseMatchScore].Score != adk[i] {
			differ++
		}
	}
	if differ != 3 {
		t.Errorf("%d of the pairs score differently under the two rules, want the 3 mostly non-Latin ones", differ)
	}
	// The shared vectors: stemmed always under 1.18, by the Latin rule
	// by default.
	f, err := os.Open(filepath.Join(testutil.SharedDir(t, "fixtures"), "rouge1-vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var v struct {
			Reference, Candidate string
			Stemmed, Unstemmed   struct{ Fmeasure string }
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		c := Case{Actual: []Invocation{{FinalResponse: v.Candidate}}, Expected: []Invocation{{FinalResponse: v.Reference}}}
		_, old := engEval(t, `{"criteria": {"response_match_score": 0.5}, "adkproxy": {"adk_version": "1.18"}}`, c)
		_, latest := engEval(t, `{"criteria": {"response_match_score": 0.5}}`, c)
		want := v.Unstemmed.Fmeasure
		if rouge.UseStemmerFor(v.Candidate, v.Reference) {
			want = v.Stemmed.Fmeasure
		}
		if got, w, _ := vectorScore(*old[ResponseMatchScore].Score, v.Stemmed.Fmeasure); got != w {
			t.Errorf("vector %d, 1.18: %v, stemmed %v", n, got, w)
		}
		if got, w, _ := vectorScore(*latest[ResponseMatchScore].Score, want); got != w {
			t.Errorf("vector %d, latest: %v, want %v", n, got, w)
		}
	}
	if n == 0 {
		t.Fatal("no ROUGE vectors read")
	}
}

// vectorScore reads a vector's score (Python's repr) beside ours.
func vectorScore(got float64, want string) (float64, float64, error) {
	w, err := strconv.ParseFloat(want, 64)
	return got, w, err
}

// adkLoadResult validates stdin with ADK 1.18's own EvalSetResult model
// and prints the number of case results it read.
const adkLoadResult = `
import sys
from google.adk.evaluation.eval_result import EvalSetResult
r = EvalSetResult.model_validate_json(sys.stdin.read())
print(len(r.eval_case_results), sum(len(c.overall_eval_metric_results) for c in r.eval_case_results))
`

// TestJSONResultLoadsInADK118 (issue 40 defect 2): with adk_version 1.18,
// score --format json and --history write what ADK 1.18's pydantic
// models load (they forbid any key of a metric result's details but
// rubric_scores, and need a number threshold); adkproxy's reasons and a
// metric's own details are kept in the case result's details, which ADK
// ignores. By default the details keep them in place.
func TestJSONResultLoadsInADK118(t *testing.T) {
	config := `{"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": 1}, "response_match_score": 0.8},
	  "adkproxy": {"criteria": {"total_tokens": {"max": 1000}}, "report_run_metrics": true, "adk_version": "1.18"}}`
	cfg, err := ParseConfig("eval_config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	c := Case{ID: "c1", EvalSetID: "set",
		Actual: []Invocation{{UserText: "hi", FinalResponse: "It is sunny in Paris.", ToolCalls: []cassettes.ToolCall{engCall("get_weather", "city", "Paris")},
			Steps: []Step{{Agent: "a", Model: "gemini-2.5-flash", Usage: Usage{Total: 12}}}}},
		Expected: []Invocation{{UserText: "hi", FinalResponse: "Sunny in Paris today.", ToolCalls: []cassettes.ToolCall{engCall("get_weather", "city", "Lyon")}}}}
	res := Evaluate(context.Background(), cfg, []Case{c})
	var b bytes.Buffer
	if err := WriteJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(adkpytest.Run(t, adkLoadResult, b.Bytes()))); !strings.HasPrefix(got, "1 ") {
		t.Fatalf("ADK read %q", got)
	}
	var doc struct {
		EvalCaseResults []struct {
			Details map[string]any
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	moved, _ := doc.EvalCaseResults[0].Details["metric_details"].(map[string]any)
	if tr, _ := moved[ToolTrajectoryAvgScore].(map[string]any); tr["match_type"] != "IN_ORDER" || !strings.Contains(tr["reason"].(string), "Lyon") {
		t.Errorf("the trajectory's details and reason are not kept beside: %v", moved)
	}
	path, err := WriteHistory(t.TempDir(), res, time.Unix(1796000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	hist, _ := os.ReadFile(path)
	adkpytest.Run(t, adkLoadResult, hist)

	// The newest ADK's shape keeps them in the metric's details.
	cfg.Adkproxy.ADKVersion = ""
	b.Reset()
	if err := WriteJSON(&b, Evaluate(context.Background(), cfg, []Case{c})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"match_type": "IN_ORDER"`) || strings.Contains(b.String(), "metric_details") {
		t.Errorf("latest: details not in place:\n%s", b.String())
	}
}

// TestIgnoreArgsFollowsADKVersion: ADK 1.18's trajectory criterion has no
// ignore_args (its criterion keeps the key and compares the args), newer
// ADK ignores the args when it is true.
func TestIgnoreArgsFollowsADKVersion(t *testing.T) {
	c := Case{Actual: []Invocation{engCalls(engCall("get_weather", "city", "Paris"))},
		Expected: []Invocation{engCalls(engCall("get_weather", "city", "Lyon"))}}
	for version, want := range map[string]float64{"1.18": 0, "latest": 1} {
		_, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": true}}, "adkproxy": {"adk_version": "`+version+`"}}`, c)
		engCheckScores(t, version, ms[ToolTrajectoryAvgScore], want, want)
	}
}

// TestMatchTypeByNameFollowsADKVersion: ADK 1.18's evaluator fails on a
// match_type given by name (its enum takes 0, 1 or 2), so the metric is
// NOT_EVALUATED; newer ADK reads the name.
func TestMatchTypeByNameFollowsADKVersion(t *testing.T) {
	c := Case{Actual: []Invocation{engCalls(engCall("a"), engCall("b"))}, Expected: []Invocation{engCalls(engCall("b"))}}
	_, ms := engEval(t, `{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "IN_ORDER"}}, "adkproxy": {"adk_version": "1.18"}}`, c)
	if m := ms[ToolTrajectoryAvgScore]; m.Status != NotEvaluated || !strings.Contains(m.Reason, "number only") {
		t.Errorf("1.18, by name: %v %q", m.Status, m.Reason)
	}
	_, ms = engEval(t, `{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": 1}}, "adkproxy": {"adk_version": "1.18"}}`, c)
	engCheckScores(t, "1.18, by number", ms[ToolTrajectoryAvgScore], 1, 1)
	_, ms = engEval(t, `{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "IN_ORDER"}}}`, c)
	engCheckScores(t, "latest, by name", ms[ToolTrajectoryAvgScore], 1, 1)
}
