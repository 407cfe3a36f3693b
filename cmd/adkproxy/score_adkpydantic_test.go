package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pydanticPython is a python3 where pydantic imports (the stand-in for ADK
// in testdata/adkstandin needs it): python3 on PATH, else Debian's, which
// .ci/run gives python3-pydantic. Skipped without one unless CI is set.
func pydanticPython(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			tried = append(tried, p+": not found")
			continue
		}
		out, err := exec.Command(path, "-c", "import pydantic; print(pydantic.VERSION)").CombinedOutput()
		if err == nil {
			return path
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		tried = append(tried, path+": "+lines[len(lines)-1])
	}
	msg := "no python3 with pydantic (Debian: apt-get install python3-pydantic): " + strings.Join(tried, "; ")
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// pydanticCassette is one session of two invocations whose tool call
// carries a string, an int and floats (2.0 among them) in its args.
func pydanticCassette(t *testing.T, dir string) string {
	t.Helper()
	const (
		user1  = `{"parts":[{"text":"Convert 12.5 EUR, 3 times, at 2.0"}],"role":"user"}`
		call   = `{"functionCall":{"id":"c1","name":"convert","args":{"currency":"EUR","amount":12.5,"times":3,"rate":2.0}}}`
		result = `{"parts":[{"functionResponse":{"id":"c1","name":"convert","response":{"total":75.0}}}],"role":"user"}`
		final1 = `{"parts":[{"text":"That makes 75 USD."}],"role":"model"}`
		user2  = `{"parts":[{"text":"Thanks!"}],"role":"user"}`
		final2 = `{"parts":[{"text":"You are welcome."}],"role":"model"}`
	)
	answer := func(parts string) string {
		return `{"candidates":[{"content":{"parts":` + parts + `,"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash"}`
	}
	step := func(n int, req, resp string) string { return generateContentStep(n, "money_agent", req, resp) }
	body := func(contents ...string) string { return `{"contents":[` + strings.Join(contents, ",") + `]}` }
	echo := `{"parts":[` + call + `],"role":"model"}`
	yaml := `version: 2
name: money
sessions:
  - id: 1
    invocations:
      - id: 1
        user: Convert 12.5 EUR, 3 times, at 2.0
        steps:
` + step(0, body(user1), answer(`[`+call+`]`)) +
		step(1, body(user1, echo, result), answer(`[{"text":"That makes 75 USD."}]`)) + `      - id: 2
        user: Thanks!
        steps:
` + step(0, body(user1, echo, result, final1, user2), answer(`[{"text":"You are welcome."}]`))
	cassettes := filepath.Join(dir, "cassettes")
	writeTestFile(t, cassettes, "money.yaml", yaml)
	return cassettes
}

// Where google.adk imports, a custom metric function by code_config.name
// gets ADK's pydantic objects: the metric (sync and async) checks inside
// Python that its arguments are instances of the stand-in's pydantic
// classes (testdata/adkstandin: ADK's class and field names, camelCase
// aliases, unknown keys forbidden) holding the cassette's and eval set's
// values, numbers keeping int or float; a failed check raises, which the
// result names. Its pydantic EvaluationResult is read back: overall score
// and status as returned (not recomputed from the threshold) and the score
// and status of each invocation.
func TestScoreCustomMetricGetsADKPydanticObjects(t *testing.T) {
	t.Parallel()
	python := pydanticPython(t)
	standin, err := filepath.Abs(filepath.Join("testdata", "adkstandin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cassettes := pydanticCassette(t, dir)
	evalset := writeTestFile(t, dir, "money.evalset.json", `{"eval_set_id": "money", "eval_cases": [{"eval_id": "money", "conversation": [
  {"invocation_id": "e1", "user_content": {"parts": [{"text": "Convert 12.5 EUR, 3 times, at 2.0"}], "role": "user"},
   "final_response": {"parts": [{"text": "That makes 75 USD."}], "role": "model"},
   "intermediate_data": {"tool_uses": [{"name": "convert", "args": {"currency": "EUR", "amount": 12.5, "times": 3, "rate": 2.0}}]}},
  {"invocation_id": "e2", "user_content": {"parts": [{"text": "Thanks!"}], "role": "user"},
   "final_response": {"parts": [{"text": "You are welcome."}], "role": "model"}}]}]}`)
	writeTestFile(t, dir, "moneymetrics.py", `from google.adk.evaluation.eval_case import IntermediateData, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult
from google.genai import types


def check(eval_metric, actual, expected, scenario):
    fails = []

    def want(cond, what):
        if not cond:
            fails.append(what)
    want(isinstance(eval_metric, EvalMetric), "eval_metric is %s" % type(eval_metric))
    want(eval_metric.threshold == 0.5, "threshold %r" % eval_metric.threshold)
    want(eval_metric.custom_function_path and eval_metric.custom_function_path.startswith("moneymetrics."),
         "custom_function_path %r" % eval_metric.custom_function_path)
    want(len(actual) == 2 and all(isinstance(i, Invocation) for i in actual), "actual %r" % actual)
    want(len(expected) == 2 and all(isinstance(i, Invocation) for i in expected), "expected %r" % expected)
    for name, invs in (("actual", actual), ("expected", expected)):
        inv = invs[0]
        want(isinstance(inv.user_content, types.Content) and isinstance(inv.user_content.parts[0], types.Part),
             "%s user_content %r" % (name, inv.user_content))
        want(inv.user_content.parts[0].text == "Convert 12.5 EUR, 3 times, at 2.0", "%s text %r" % (name, inv.user_content.parts[0].text))
        want(isinstance(inv.final_response, types.Content) and inv.final_response.parts[0].text == "That makes 75 USD.",
             "%s final_response %r" % (name, inv.final_response))
        want(isinstance(inv.intermediate_data, IntermediateData), "%s intermediate_data %r" % (name, inv.intermediate_data))
        call = inv.intermediate_data.tool_uses[0]
        want(isinstance(call, types.FunctionCall) and call.name == "convert", "%s tool use %r" % (name, call))
        args = call.args
        want(args == {"currency": "EUR", "amount": 12.5, "times": 3, "rate": 2.0}, "%s args %r" % (name, args))
        # Known gap: a whole float recorded in a cassette (rate 2.0) reaches
        # the metric as int, as the cassette's args are decoded to float64;
        # the eval set keeps the literal.
        want(type(args.get("times")) is int and type(args.get("amount")) is float and
             (type(args.get("rate")) is float or name == "actual"),
             "%s arg types %r" % (name, {k: type(v).__name__ for k, v in args.items()}))
        want(expected[1].user_content.parts[0].text == "Thanks!", "expected[1] %r" % expected[1])
    want(actual[0].intermediate_data.tool_responses[0].response == {"total": 75.0},
         "tool response %r" % actual[0].intermediate_data.tool_responses)
    want(scenario is None, "scenario %r" % scenario)
    if fails:
        raise AssertionError("; ".join(fails))
    per = [PerInvocationResult(actual_invocation=actual[0], expected_invocation=expected[0], score=1.0, eval_status=EvalStatus.PASSED),
           PerInvocationResult(actual_invocation=actual[1], expected_invocation=expected[1], score=0.25, eval_status=EvalStatus.FAILED)]
    # times / 4 (0.75) is above the 0.5 threshold; the status the function
    # gives is what counts.
    return EvaluationResult(overall_score=actual[0].intermediate_data.tool_uses[0].args["times"] / 4,
                            overall_eval_status=EvalStatus.FAILED, per_invocation_results=per)


def sync_metric(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return check(eval_metric, actual_invocations, expected_invocations, conversation_scenario)


async def async_metric(eval_metric, actual_invocations, expected_invocations, conversation_scenario=None):
    return check(eval_metric, actual_invocations, expected_invocations, conversation_scenario)
`)
	cfg := writeTestFile(t, dir, "test_config.json", `{
  "criteria": {"sync_metric": 0.5, "async_metric": 0.5},
  "custom_metrics": {
    "sync_metric": {"code_config": {"name": "moneymetrics.sync_metric"}},
    "async_metric": {"code_config": {"name": "moneymetrics.async_metric"}}
  }}`)
	// No __pycache__ written into the source tree.
	env := []string{"PYTHONPATH=" + standin, "PYTHONDONTWRITEBYTECODE=1"}
	r := adkproxy(t, env, "score", "--cassettes", cassettes, "--expected", evalset, "--config", cfg, "--python", python, "--format", "json")
	var doc struct {
		Cases []struct {
			Overall []struct {
				Metric  string         `json:"metric_name"`
				Score   *float64       `json:"score"`
				Status  int            `json:"eval_status"`
				Details map[string]any `json:"details"`
			} `json:"overall_eval_metric_results"`
			PerInvocation []struct {
				Results []struct {
					Metric string   `json:"metric_name"`
					Score  *float64 `json:"score"`
					Status int      `json:"eval_status"`
				} `json:"eval_metric_results"`
			} `json:"eval_metric_result_per_invocation"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("exit %d: %v\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
	}
	c := doc.Cases[0]
	for _, metric := range []string{"sync_metric", "async_metric"} {
		var got string
		for _, m := range c.Overall {
			if m.Metric == metric {
				got = fmt.Sprintf("%s %d %v %v", fmtScore(m.Score), m.Status, m.Details["python_objects"], m.Details["reason"])
			}
		}
		if want := "0.75 2 adk " + metric + " reported FAILED with score 0.75 (threshold 0.5): invocation 2: " + metric + " 0.25 is below the threshold 0.5"; got != want {
			t.Errorf("%s overall: %s\nwant %s", metric, got, want)
		}
		var per []string
		for _, inv := range c.PerInvocation {
			for _, m := range inv.Results {
				if m.Metric == metric {
					per = append(per, fmt.Sprintf("%s %d", fmtScore(m.Score), m.Status))
				}
			}
		}
		if got, want := strings.Join(per, ", "), "1 1, 0.25 2"; got != want {
			t.Errorf("%s per invocation: %s\nwant %s", metric, got, want)
		}
	}
	if r.code != exitFailure {
		t.Errorf("exit %d, want %d (the metrics returned FAILED)\n%s", r.code, exitFailure, r.stderr)
	}
}

func fmtScore(s *float64) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprint(*s)
}
