package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// llmMetric asks Gemini, through GOOGLE_GEMINI_BASE_URL as an SDK would,
// whether each final response answers its question; run both as a Python
// function (code_config.name) and as a command.
const llmMetric = `import json, os, sys, urllib.request


def ask(text):
    url = os.environ["GOOGLE_GEMINI_BASE_URL"] + "/v1beta/models/gemini-2.5-flash:generateContent"
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": text}]}]}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json", "x-goog-api-key": os.environ["GOOGLE_API_KEY"]})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["candidates"][0]["content"]["parts"][0]["text"]


def answered(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    scores = []
    for inv in actual_invocations:
        question = inv.user_content.parts[0].text
        answer = inv.final_response.parts[0].text
        scores.append(1.0 if ask("Does %r answer %r? yes or no" % (answer, question)).strip() == "yes" else 0.0)
    return {"overall_score": sum(scores) / len(scores), "overall_eval_status": None,
            "per_invocation_results": [{"score": s, "eval_status": None} for s in scores]}


if __name__ == "__main__":
    req = json.load(sys.stdin)
    scores = []
    for inv in req["actual_invocations"]:
        scores.append(1.0 if ask("Command: does %r answer?" % inv["final_response"]["parts"][0]["text"]).strip() == "yes" else 0.0)
    print(json.dumps({"overall_score": sum(scores) / len(scores)}))
`

// Custom metrics that call Gemini themselves get GOOGLE_GEMINI_BASE_URL
// pointing at the judge's recorder: recorded once with a key into the
// judge's cassettes, then replayed with no key and no judge, to the same
// result.
func TestScoreCustomMetricModelCallsRecordThenReplay(t *testing.T) {
	t.Parallel()
	python := debianPython(t)
	dir := testutil.OutDir(t)
	writeTestFile(t, dir, "llm_metric.py", llmMetric)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {"answered": 1.0, "answered_cmd": 0.5},
	  "custom_metrics": {"answered": {"code_config": {"name": "llm_metric.answered"}},
	                     "answered_cmd": {"command": ["`+python+`", "llm_metric.py"]}}}`)
	fake := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		if strings.Contains(prompt, "Tokyo") && strings.HasPrefix(prompt, "Command") {
			return fakejudge.Reply{Text: "no"}
		}
		return fakejudge.Reply{Text: "yes"}
	}}
	up := httptest.NewServer(fake)
	judgeDir := filepath.Join(dir, "judge")
	args := func(out string) []string {
		return []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--python", python,
			"--judge-cassettes", judgeDir, "--judge-base-url", up.URL, "--format", "json", "--out", out}
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args(filepath.Join(dir, "recorded.json"))...)
	up.Close()
	if rec.code != 0 || fake.Calls() != 4 || !strings.Contains(rec.stderr, "judge: 4 calls made") {
		t.Fatalf("record: exit %d, %d calls\nstderr:\n%s", rec.code, fake.Calls(), rec.stderr)
	}
	if n := testutil.CountInDir(t, judgeDir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the key appears %d times in the judge cassettes", n)
	}
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "judge: 4 calls replayed") {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	strip := func(s string) string { // the result id and time differ
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "eval_set_result_") && !strings.Contains(l, "creation_timestamp\": 17") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	recorded, replayed := readFile(t, filepath.Join(dir, "recorded.json")), readFile(t, filepath.Join(dir, "replayed.json"))
	if strip(recorded) != strip(replayed) {
		t.Errorf("replay differs from the recording:\n%s\n---\n%s", recorded, replayed)
	}
	if !strings.Contains(replayed, `"metric_name": "answered_cmd",`) || !strings.Contains(replayed, `"score": 0.5,`) {
		t.Errorf("result:\n%s", replayed)
	}
}
