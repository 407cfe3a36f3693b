package main

import (
	"encoding/csv"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// scaleDefinitions are three metrics on a 0–5 scale, one prompt in a file.
const scaleDefinitions = `{
  "trajectory_accuracy": {"prompt": "Criterion: trajectory accuracy. The user asked: {{.UserText}}\nThe agent called:\n{{.ToolCalls}}\nThe expected calls were:\n{{.ReferenceToolCalls}}",
    "min": 0, "max": 5, "threshold": 4, "num_samples": 2},
  "response_correctness": {"prompt_file": "correctness.tmpl", "max": 5, "threshold": 4, "judge_model_config": {"temperature": 0}},
  "state_management_fidelity": {"prompt": "Criterion: state fidelity. Session state: {{.State}}\nTool results: {{.ToolResults}}", "num_samples": 1}
}`

const correctnessPrompt = "Criterion: response correctness. Question: {{.UserText}}\nAnswer: {{.FinalResponse}}\nReference: {{.Reference}}"

// TestScaleMetricsRecordedOnceReplayedOffline: metrics defined in a file the
// eval config names, graded by a scripted judge on loopback: recorded once,
// then replayed with no key and no judge to the same CSV, byte for byte.
func TestScaleMetricsRecordedOnceReplayedOffline(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	os.WriteFile(filepath.Join(dir, "metrics.json"), []byte(scaleDefinitions), 0o644)
	os.WriteFile(filepath.Join(dir, "correctness.tmpl"), []byte(correctnessPrompt), 0o644)
	config := filepath.Join(dir, "test_config.json")
	os.WriteFile(config, []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0}, "adkproxy": {"llm_metrics": "metrics.json"}}`), 0o644)
	judgeDir := filepath.Join(dir, "judge")

	var mu sync.Mutex
	var prompts []string
	fake := &fakejudge.Handler{Script: func(prompt string, seen int) fakejudge.Reply {
		mu.Lock()
		prompts = append(prompts, prompt)
		mu.Unlock()
		switch {
		case strings.Contains(prompt, "trajectory accuracy"):
			// Two samples: 4 then 5, so each invocation's mean is 4.5.
			return fakejudge.Reply{Text: []string{`{"score": 4, "rationale": "The calls match, one argument spelt loosely."}`,
				`{"score": 5, "rationale": "The calls match."}`}[seen%2]}
		case strings.Contains(prompt, "response correctness"):
			return fakejudge.Reply{Text: "```json\n{\"score\": \"3\", \"rationale\": \"Right city, the temperature differs.\"}\n```"}
		case strings.Contains(prompt, "state fidelity"):
			return fakejudge.Reply{Text: "Score: 2\nRationale: no state is kept."}
		}
		return fakejudge.Reply{Status: 400}
	}}
	up := httptest.NewServer(fake)
	args := func(extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config,
			"--format", "csv", "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args("--judge-base-url", up.URL)...)
	up.Close()
	// 2 invocations × (2 + 1 + 1) samples.
	if fake.Calls() != 8 || !strings.Contains(rec.stderr, "judge: 8 calls made") {
		t.Fatalf("record: exit %d, %d judge calls\nstdout %s\nstderr %s", rec.code, fake.Calls(), rec.stdout, rec.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(rec.stdout)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("csv: %v\n%s", err, rec.stdout)
	}
	cell := map[string]string{}
	for i, c := range rows[0] {
		cell[c] = rows[1][i]
	}
	for col, want := range map[string]string{
		"trajectory_accuracy": "4.5", "trajectory_accuracy.status": "PASSED",
		"response_correctness": "3", "response_correctness.status": "FAILED",
		"state_management_fidelity": "2", "state_management_fidelity.status": "INFORMATIONAL",
		"status": "FAILED",
	} {
		if cell[col] != want {
			t.Errorf("%s = %q, want %q (row %v)", col, cell[col], want, cell)
		}
	}
	// The definitions' templates saw the invocation's fields.
	joined := strings.Join(prompts, "\n====\n")
	for _, want := range []string{"The user asked: What is the weather in Paris?", `"name": "get_weather"`, `"city": "Tokyo"`,
		"Reference: It is 24°C and clear in Tokyo.", "Answer: It is 24°C in Tokyo, clear.", "Session state: {}",
		`{"score": <a number from 0 to 5>, "rationale":`} {
		if !strings.Contains(joined, want) {
			t.Errorf("no judge prompt holds %q:\n%s", want, joined)
		}
	}

	// No key, no judge: the same CSV from the cassettes.
	rep := adkproxy(t, nil, args()...)
	if rep.stdout != rec.stdout || !strings.Contains(rep.stderr, "judge: 8 calls replayed") {
		t.Errorf("replay differs:\n%s\nrecorded:\n%s\nstderr %s", rep.stdout, rec.stdout, rep.stderr)
	}
	// The table shows each invocation's mean and a rationale.
	table := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir)
	if !strings.Contains(table.stdout, "invocation 1: 4.5 of 5 (mean of 2 samples): The calls match, one argument spelt loosely.") ||
		!strings.Contains(table.stdout, "invocation 2: 3 of 5 (mean of 1 sample): Right city, the temperature differs.") {
		t.Errorf("table:\n%s", table.stdout)
	}
	// Without a judge the metrics say why they have no score.
	none := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config)
	if !strings.Contains(none.stdout, "it needs an LLM judge and none was given") {
		t.Errorf("without a judge:\n%s", none.stdout)
	}
}

// Bad definitions stop score before any judge call, naming the file and
// the field.
func TestScaleMetricDefinitionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ def, want string }{
		{`{"m": {"prompt": "{{.Nope}}", "threshold": 3}}`, `adkproxy.llm_metrics.m: the prompt does not render`},
		{`{"m": {"prompt": "x", "threshold": 7}}`, `adkproxy.llm_metrics.m.threshold: the threshold 7 is outside the scale 0 to 5`},
		{`{"m": {"threshold": 3}}`, `adkproxy.llm_metrics.m: give the judge's prompt as "prompt"`},
		{`{"m": {"prompt": "x", "num_samples": 0}}`, `adkproxy.llm_metrics.m.num_samples: want a whole number from 1 to 100`},
		{`{"m": {"prompt": "x", "min": 5, "max": 1}}`, `min 5 must be below max 1`},
		{`{"total_tokens": {"prompt": "x"}}`, `total_tokens is already a metric`},
		{`{"m": {"prompt_file": "missing.tmpl"}}`, `adkproxy.llm_metrics.m.prompt_file: open`},
		{`"missing.json"`, `adkproxy.llm_metrics: reading the metric definitions`},
	} {
		config := filepath.Join(dir, "c.json")
		os.WriteFile(config, []byte(`{"adkproxy": {"llm_metrics": `+tc.def+`}}`), 0o644)
		r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--config", config)
		if r.code != exitDataErr || !strings.Contains(r.stderr, "c.json") || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %s; want %q", tc.def, r.code, r.stderr, tc.want)
		}
	}
}
