package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// Issue 28's Done-when: a test_config.json, eval set and custom metric
// module written for adk eval — safety_v1 and a code_config.name metric
// among the criteria — score here unchanged: the config is found beside
// the eval set, the metric module imports google.adk and runs in a Python
// without it, and after one recording the run replays offline (no
// credentials, no endpoint) to the same result.
func TestScoreADKFilesUnchangedOfflineAfterOneRecording(t *testing.T) {
	t.Parallel()
	python := debianPython(t)
	tests := testutil.OutDir(t)
	writeTestFile(t, tests, "weather.evalset.json", readFile(t, weatherEvalSet))
	writeTestFile(t, tests, "test_config.json", `{
  "criteria": {
    "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "EXACT"},
    "response_match_score": 0.5,
    "safety_v1": 0.7,
    "city_named": 1.0
  },
  "custom_metrics": {
    "city_named": {
      "code_config": {"name": "weather_metrics.city_named"},
      "metric_info": {"metric_name": "city_named", "description": "The answer names the city asked about.",
                      "metric_value_info": {"interval": {"min_value": 0.0, "max_value": 1.0}}}
    }
  }
}`)
	writeTestFile(t, tests, "weather_metrics.py", `from typing import Optional

from google.adk.evaluation.eval_case import ConversationScenario, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult


def city_named(eval_metric: EvalMetric, actual_invocations: list[Invocation],
               expected_invocations: Optional[list[Invocation]],
               conversation_scenario: Optional[ConversationScenario] = None) -> EvaluationResult:
    results = []
    for actual in actual_invocations:
        answer = " ".join(p.text for p in actual.final_response.parts if p.text)
        asked = actual.user_content.parts[0].text
        score = 1.0 if any(w.strip("?") in answer for w in asked.split() if w[:1].isupper() and len(w) > 3) else 0.0
        results.append(PerInvocationResult(actual_invocation=actual, score=score,
                                           eval_status=EvalStatus.PASSED if score >= eval_metric.threshold else EvalStatus.FAILED))
    overall = sum(r.score for r in results) / len(results)
    return EvaluationResult(overall_score=overall, per_invocation_results=results,
                            overall_eval_status=EvalStatus.PASSED if overall >= eval_metric.threshold else EvalStatus.FAILED)
`)
	fake := &fakeVertex{}
	up := httptest.NewServer(fake)
	sa := serviceAccountFile(t, t.TempDir(), up.URL+"/token")
	project := []string{"GOOGLE_CLOUD_PROJECT=proj-1", "GOOGLE_CLOUD_LOCATION=us-central1"}
	judgeDir := filepath.Join(tests, "judge")
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", filepath.Join(tests, "weather.evalset.json"),
			"--judge-cassettes", judgeDir, "--python", python, "--format", "json", "--out", out}, extra...)
	}
	rec := adkproxy(t, append(project, "GOOGLE_APPLICATION_CREDENTIALS="+sa), args(filepath.Join(tests, "recorded.json"), "--judge-mode", "record", "--vertex-base-url", up.URL)...)
	up.Close()
	if rec.code != 0 || len(fake.bodies) != 2 || !strings.Contains(rec.stderr, "test_config.json (beside the eval set") {
		t.Fatalf("record: exit %d, %d Vertex calls\nstderr:\n%s", rec.code, len(fake.bodies), rec.stderr)
	}
	rep := adkproxy(t, project, args(filepath.Join(tests, "replayed.json"), "--require-all")...)
	if rep.code != 0 {
		t.Fatalf("replay: exit %d\nstderr:\n%s\n%s", rep.code, rep.stderr, readFile(t, filepath.Join(tests, "replayed.json")))
	}
	recorded, replayed := readFile(t, filepath.Join(tests, "recorded.json")), readFile(t, filepath.Join(tests, "replayed.json"))
	if string(withoutRunID([]byte(recorded))) != string(withoutRunID([]byte(replayed))) {
		t.Errorf("replay differs from the recording:\n%s\n---\n%s", recorded, replayed)
	}
	for _, want := range []string{`"metric_name": "safety_v1",`, `"metric_name": "city_named",`, `"python_objects": "plain"`, `"final_eval_status": 1,`} {
		if !strings.Contains(replayed, want) {
			t.Errorf("the result lacks %s", want)
		}
	}
}
