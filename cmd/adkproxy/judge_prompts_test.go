package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// --judge-prompts DIR swaps adkproxy's judge prompts for the user's: an
// ADK-style text with ADK's variable names, and a Go template over
// adkproxy's data; a placeholder the prompt does not fill, or a file of no
// known kind, is exit 65 naming the file.
func TestScoreJudgePromptsDir(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	prompts := filepath.Join(dir, "prompts")
	writeTestFile(t, prompts, "final_response_match_v2.txt", "MY V2 PROMPT\nUser: {prompt}\nAgent: {response}\nGolden: {golden_response}\nAnswer in JSON like {{\"is_the_agent_response_valid\": \"valid\"}}.")
	writeTestFile(t, prompts, "rubric_based_final_response_quality_v1.tmpl", `{{define "main"}}MY RUBRIC PROMPT for {{.UserPrompt}}{{end}}{{define "property"}}ID: {{.ID}}
Property: {{.Text}}{{end}}`)
	cfg := writeTestFile(t, dir, "test_config.json", `{"criteria": {
	  "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}},
	  "rubric_based_final_response_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1},
	    "rubrics": [{"rubric_id": "names_city", "rubric_content": {"text_property": "Names the city."}}]}}}`)
	var mu sync.Mutex
	var asked []string
	fake := &fakejudge.Handler{Script: func(prompt string, _ int) fakejudge.Reply {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		if strings.HasPrefix(prompt, "MY V2 PROMPT") {
			return fakejudge.Reply{Text: `{"reasoning": "ok", "is_the_agent_response_valid": "valid"}`}
		}
		return fakejudge.Reply{Text: "ID: names_city\nProperty: Names the city.\nRationale: it does\nVerdict: yes\n"}
	}}
	up := httptest.NewServer(fake)
	defer up.Close()
	judgeDir := filepath.Join(dir, "judge")
	args := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg,
		"--judge-cassettes", judgeDir, "--judge-prompts", prompts, "--judge-base-url", up.URL}
	r := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, args...)
	if r.code != 0 || len(asked) != 4 {
		t.Fatalf("exit %d, %d judge calls\nstdout:\n%s\nstderr:\n%s", r.code, len(asked), r.stdout, r.stderr)
	}
	joined := strings.Join(asked, "\n---\n")
	for _, want := range []string{
		"MY V2 PROMPT\nUser: What is the weather in Paris?\nAgent: It is 18°C in Paris, clear.\nGolden: It is 18°C and clear in Paris.\nAnswer in JSON like {\"is_the_agent_response_valid\": \"valid\"}.",
		"MY RUBRIC PROMPT for And what about Tokyo?\nID: names_city\nProperty: Names the city.",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no judge call asked\n%s\ncalls:\n%s", want, joined)
		}
	}
	// Replay with the same prompts, no key: the same verdicts.
	if r := adkproxy(t, nil, args...); r.code != 0 {
		t.Errorf("replay: exit %d\n%s", r.code, r.stderr)
	}

	bad := filepath.Join(dir, "bad")
	writeTestFile(t, bad, "final_response_match_v2.txt", "Reference: {reference}")
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--judge-prompts", bad)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "final_response_match_v2.txt: {reference} at byte 11: not a variable of this prompt (it has prompt, response, golden_response") {
		t.Errorf("bad variable: exit %d\n%s", r.code, r.stderr)
	}
	odd := filepath.Join(dir, "odd")
	writeTestFile(t, odd, "judge.txt", "x")
	r = adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg, "--judge-cassettes", judgeDir, "--judge-prompts", odd)
	if r.code != exitDataErr || !strings.Contains(r.stderr, "judge.txt: not a judge prompt") {
		t.Errorf("unknown kind: exit %d\n%s", r.code, r.stderr)
	}
}
