package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// approving is a judge that finds everything valid, every rubric met and
// every sentence supported, in the formats adkproxy's prompts ask for.
func approving(prompt string, seen int) fakejudge.Reply {
	switch {
	case strings.Contains(prompt, "is_the_agent_response_valid"):
		return fakejudge.Reply{Text: `{"reasoning": "Same facts as the reference.", "is_the_agent_response_valid": "valid"}`}
	case strings.Contains(prompt, "<property>"):
		var b strings.Builder
		for _, block := range strings.Split(prompt, "<property>")[1:] {
			id, _, _ := strings.Cut(strings.SplitN(block, "ID: ", 2)[1], "\n")
			b.WriteString("ID: " + id + "\nProperty: as given\nRationale: it holds\nVerdict: yes\n")
		}
		return fakejudge.Reply{Text: b.String()}
	case strings.Contains(prompt, "<sentence>first sentence"):
		return fakejudge.Reply{Text: "<sentence>The answer.</sentence>"}
	case strings.Contains(prompt, "supporting_excerpt:"):
		return fakejudge.Reply{Text: "sentence: The answer.\nlabel: supported\nrationale: the tool said so\nsupporting_excerpt: 18°C\ncontradicting_excerpt: none"}
	}
	return fakejudge.Reply{Status: 400}
}

const judgedConfig = `{"criteria": {
  "tool_trajectory_avg_score": 1.0,
  "final_response_match_v2": {"threshold": 1.0, "judge_model_options": {"num_samples": 3}},
  "rubric_based_tool_use_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1},
    "rubrics": [{"rubric_id": "one_call", "rubric_content": {"text_property": "The agent calls get_weather once per city."}}]},
  "hallucinations_v1": 1.0,
  "safety_v1": 1.0
}}`

// The Done-when of issue 17: record the judge's verdicts once with a key,
// then score with no key and no judge from the cassettes alone, and get
// the same numbers, byte for byte.
func TestScoreJudgedCriteriaReplayWithoutKeyOrNetwork(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	config := filepath.Join(dir, "test_config.json")
	if err := os.WriteFile(config, []byte(judgedConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	judgeDir := filepath.Join(dir, "judge")
	fake := &fakejudge.Handler{Script: approving}
	up := httptest.NewServer(fake)
	args := func(out string, extra ...string) []string {
		return append([]string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config,
			"--format", "json", "--out", out, "--judge-cassettes", judgeDir}, extra...)
	}
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey},
		args(filepath.Join(dir, "recorded.json"), "--judge-base-url", up.URL)...)
	up.Close()
	// safety_v1 stays NOT_EVALUATED (no Vertex AI): skipped as ADK skips it.
	if rec.code != 0 || !strings.Contains(rec.stderr, "judge: ") {
		t.Fatalf("record: exit %d\nstderr:\n%s", rec.code, rec.stderr)
	}
	// 2 invocations × (3 samples + 1 rubric call + segmenter + validator).
	wantCalls := 2 * (3 + 1 + 2)
	if fake.Calls() != wantCalls || !strings.Contains(rec.stderr, "judge: 12 calls made, recorded into "+judgeDir) {
		t.Errorf("the judge answered %d calls, want %d; stderr:\n%s", fake.Calls(), wantCalls, rec.stderr)
	}
	if n := testutil.CountInDir(t, judgeDir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the key appears %d times in the judge cassettes", n)
	}

	// No key, the judge gone: replay is the default.
	rep := adkproxy(t, nil, args(filepath.Join(dir, "replayed.json"))...)
	if rep.code != 0 || !strings.Contains(rep.stderr, "judge: 12 calls replayed from "+judgeDir+"; ") ||
		!strings.Contains(rep.stderr, "by the price table (gemini-2.5-flash)") {
		t.Fatalf("replay: exit %d\nstderr:\n%s", rep.code, rep.stderr)
	}
	recorded, _ := os.ReadFile(filepath.Join(dir, "recorded.json"))
	replayed, _ := os.ReadFile(filepath.Join(dir, "replayed.json"))
	if a, b := withoutRunID(recorded), withoutRunID(replayed); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("replayed JSON differs from the recorded one:\n%s\n---\n%s", a, b)
	}
	for _, want := range []string{`"metric_name": "final_response_match_v2"`, `"verdict": "valid"`, `"rationale": "Same facts as the reference."`,
		`"rubric_id": "one_call"`, `"label": "supported"`} {
		if !bytes.Contains(replayed, []byte(want)) {
			t.Errorf("the JSON lacks %s", want)
		}
	}

	// The table shows the majority and a rationale per invocation.
	table := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir)
	for _, want := range []string{"final_response_match_v2", "invocation 1: valid (3 of 3 samples): Same facts as the reference.",
		"invocation 2: 1 of 1 rubric met (majority of 1 sample): it holds", "invocation 1: 1 of 1 sentences supported"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, table.stdout)
		}
	}
	md := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", config, "--judge-cassettes", judgeDir, "--format", "markdown")
	if !strings.Contains(md.stdout, "- `final_response_match_v2`: invocation 2: valid \\(3 of 3 samples\\): Same facts as the reference.") {
		t.Errorf("markdown lacks the verdict:\n%s", md.stdout)
	}
}

func withoutRunID(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"eval_set_result_id"`)) || bytes.Contains(l, []byte(`"eval_set_result_name"`)) || bytes.Contains(l, []byte(`"creation_timestamp"`)) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte("\n"))
}

func TestScoreJudgeUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-cassettes", dir, "--judge-mode", "record"); r.code != exitUsage ||
		!strings.Contains(r.stderr, "needs GOOGLE_API_KEY or GEMINI_API_KEY") {
		t.Errorf("record without a key: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-mode", "replay"); r.code != exitUsage {
		t.Errorf("--judge-mode without --judge-cassettes: exit %d, stderr %s", r.code, r.stderr)
	}
	// Another recorder holds the folder: exit 75, nothing written.
	l, _, err := reclock.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, []string{"GEMINI_API_KEY=" + testutil.SecretAPIKey}, "score", "--cassettes", weatherCassette, "--judge-cassettes", dir)
	l.Release()
	if r.code != exitTempFail {
		t.Errorf("recording into a locked folder: exit %d, stderr %s", r.code, r.stderr)
	}
	bad := filepath.Join(dir, "bad_config.json")
	os.WriteFile(bad, []byte(`{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_model_options": {"num_samples": 2.5}}}}`), 0o644)
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--config", bad, "--judge-cassettes", dir); r.code != exitDataErr ||
		!strings.Contains(r.stderr, "bad_config.json: criteria.final_response_match_v2.judge_model_options.num_samples: want a whole number") {
		t.Errorf("bad judge options: exit %d, stderr %s", r.code, r.stderr)
	}
	// A missing folder is nothing recorded (TestScoreAnalysisReplayWithoutJudgeFolder); a file is an error.
	if r := adkproxy(t, nil, "score", "--cassettes", weatherCassette, "--judge-cassettes", bad); r.code != exitDataErr ||
		!strings.Contains(r.stderr, "--judge-cassettes") {
		t.Errorf("replay from a file: exit %d, stderr %s", r.code, r.stderr)
	}
}

// Record had nothing to judge (every case passed, no LLM-judged criterion),
// so it never created the judge's folder: replaying the same run is
// "nothing to judge", not exit 65. When a call is needed after all, the
// hint is score's own record mode, not 'adkproxy record'.
func TestScoreAnalysisReplayWithoutJudgeFolder(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "judge")
	report := filepath.Join(t.TempDir(), "analysis.md")
	r := adkproxy(t, nil, "score", weatherCassette, "--expected", weatherEvalSet, "--config", weatherConfig,
		"--judge-cassettes", missing, "--judge-mode", "replay", "--analysis", report)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: nothing to judge\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("replay created the judge's folder")
	}
	data, err := os.ReadFile(weatherEvalSet)
	if err != nil {
		t.Fatal(err)
	}
	london := filepath.Join(t.TempDir(), "london.evalset.json")
	os.WriteFile(london, []byte(strings.Replace(string(data), `"args": {"city": "Tokyo"}`, `"args": {"city": "London"}`, 1)), 0o644)
	r = adkproxy(t, nil, "score", weatherCassette, "--expected", london, "--config", weatherConfig,
		"--judge-cassettes", missing, "--judge-mode", "replay", "--analysis", report)
	if r.code != exitFailure || !strings.Contains(r.stderr, "adkproxy score --judge-mode record") || strings.Contains(r.stderr, "adkproxy record --cassettes") {
		t.Errorf("a failed case to analyse: exit %d, want 1 with the hint score --judge-mode record\nstderr:\n%s", r.code, r.stderr)
	}
}
