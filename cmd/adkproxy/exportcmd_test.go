// Tests of the export command (named exportcmd_test.go because export_test.go
// is Go's convention for test-only exports of a package).

package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// exportedSet is the part of an exported eval set the tests look at.
type exportedSet struct {
	EvalSetID string `json:"eval_set_id"`
	Name      string `json:"name"`
	EvalCases []struct {
		EvalID       string `json:"eval_id"`
		SessionInput any    `json:"session_input"`
		Conversation []struct {
			InvocationID string `json:"invocation_id"`
			UserContent  struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
				Role string `json:"role"`
			} `json:"user_content"`
			FinalResponse *struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
				Role string `json:"role"`
			} `json:"final_response"`
			IntermediateData struct {
				ToolUses              []map[string]any `json:"tool_uses"`
				ToolResponses         []map[string]any `json:"tool_responses"`
				IntermediateResponses [][]any          `json:"intermediate_responses"`
			} `json:"intermediate_data"`
		} `json:"conversation"`
	} `json:"eval_cases"`
}

func TestExportTheDemo(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "export", "--cassettes", weatherCassette, "--format", "evalset")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var set exportedSet
	if err := json.Unmarshal([]byte(r.stdout), &set); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	// Named after the cassette folder; one case for the one session.
	if set.EvalSetID != "cassettes" || set.Name != "cassettes" || len(set.EvalCases) != 1 || set.EvalCases[0].EvalID != "default" ||
		set.EvalCases[0].SessionInput != nil || len(set.EvalCases[0].Conversation) != 2 {
		t.Fatalf("eval set %+v", set)
	}
	paris := set.EvalCases[0].Conversation[0]
	if paris.UserContent.Role != "user" || paris.UserContent.Parts[0].Text != "What is the weather in Paris?" ||
		paris.FinalResponse == nil || paris.FinalResponse.Role != "model" || paris.FinalResponse.Parts[0].Text != "It is 18°C in Paris, clear." {
		t.Errorf("invocation 1 %+v", paris)
	}
	if want := []map[string]any{{"name": "get_weather", "args": map[string]any{"city": "Paris"}}}; !reflect.DeepEqual(paris.IntermediateData.ToolUses, want) {
		t.Errorf("tool_uses %v", paris.IntermediateData.ToolUses)
	}
	if want := []map[string]any{{"name": "get_weather", "response": map[string]any{"city": "Paris", "sky": "clear", "temp_c": 18.0}}}; !reflect.DeepEqual(paris.IntermediateData.ToolResponses, want) {
		t.Errorf("tool_responses %v", paris.IntermediateData.ToolResponses)
	}
	if paris.IntermediateData.IntermediateResponses == nil || len(paris.IntermediateData.IntermediateResponses) != 0 {
		t.Errorf("intermediate_responses %v", paris.IntermediateData.IntermediateResponses)
	}
	// snake_case keys as ADK writes them, nothing camelCase.
	for _, key := range []string{`"eval_set_id"`, `"eval_cases"`, `"eval_id"`, `"conversation"`, `"invocation_id"`,
		`"user_content"`, `"final_response"`, `"intermediate_data"`, `"tool_uses"`, `"tool_responses"`, `"intermediate_responses"`, `"creation_timestamp"`} {
		if !strings.Contains(r.stdout, key) {
			t.Errorf("no %s in\n%s", key, r.stdout)
		}
	}
	// Unset fields left out, as ADK's local eval-set files leave them.
	if strings.Contains(r.stdout, "session_input") || strings.Contains(r.stdout, "description") {
		t.Errorf("unset session_input or description written in\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "evalSetId") || strings.Contains(r.stdout, "userContent") {
		t.Errorf("camelCase keys in\n%s", r.stdout)
	}
	// The demo's eval set id, from --out or given.
	out := filepath.Join(t.TempDir(), "golden.evalset.json")
	r = adkproxy(t, nil, "export", "--cassettes", weatherCassette, "--out", out)
	data, _ := os.ReadFile(out)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, `wrote eval set "golden" to `+out+": 1 eval case(s), 2 invocation(s)") ||
		!strings.Contains(string(data), `"eval_set_id": "golden"`) {
		t.Errorf("--out: exit %d, stderr %q", r.code, r.stderr)
	}
	r = adkproxy(t, nil, "export", "--cassettes", weatherCassette, "--eval-set-id", "demo_v2")
	if r.code != 0 || !strings.Contains(r.stdout, `"eval_set_id": "demo_v2"`) {
		t.Errorf("--eval-set-id: exit %d\n%s", r.code, r.stdout)
	}
}

// A golden run becomes an eval set, and scoring the same cassettes against
// it passes every case with ADK's default criteria: export and score agree
// on names (a cassette with several sessions gives "<cassette>/<session>")
// and on every field they compare.
func TestExportThenScoreRoundTrip(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	data, err := os.ReadFile(filepath.Join(weatherCassette, "default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "default.yaml"), data, 0o644)
	// Two more sessions, in one cassette, recorded from the fake upstream.
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	for _, q := range []string{"Tell me a joke.", "How are you today?"} {
		rec := adkproxy(t, []string{"QUESTION=" + q},
			append([]string{"record", "--cassettes", dir, "--cassette", "chat", "--mode", "new-episodes", "--upstream", up.URL}, self("ask")...)...)
		if rec.code != 0 {
			t.Fatalf("record: exit %d\n%s", rec.code, rec.stderr)
		}
	}

	golden := filepath.Join(t.TempDir(), "golden.evalset.json")
	r := adkproxy(t, nil, "export", "--cassettes", dir, "--format", "evalset", "--out", golden)
	if r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	first, _ := os.ReadFile(golden)
	var set exportedSet
	if err := json.Unmarshal(first, &set); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range set.EvalCases {
		ids = append(ids, c.EvalID)
	}
	if !reflect.DeepEqual(ids, []string{"chat/1", "chat/2", "default"}) {
		t.Fatalf("eval ids %v", ids)
	}
	// Exporting again gives the same bytes (no timestamps, no call ids).
	r = adkproxy(t, nil, "export", "--cassettes", dir, "--eval-set-id", "golden")
	if r.code != 0 || r.stdout != string(first) {
		t.Errorf("second export differs: exit %d\n%s", r.code, r.stdout)
	}

	r = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", golden)
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "\nPASSED: 3 of 3 cases passed; 6 of 6 criteria passed\n") {
		t.Fatalf("score: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", golden, "--format", "json")
	var res struct {
		Cases []struct {
			EvalID  string `json:"eval_id"`
			Status  int    `json:"final_eval_status"`
			Overall []struct {
				Metric string   `json:"metric_name"`
				Score  *float64 `json:"score"`
				Status int      `json:"eval_status"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || len(res.Cases) != 3 {
		t.Fatalf("json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	for _, c := range res.Cases {
		if c.Status != 1 || len(c.Overall) != 2 {
			t.Errorf("%s: %+v", c.EvalID, c)
		}
		for _, m := range c.Overall {
			if m.Status != 1 || m.Score == nil || *m.Score != 1 {
				t.Errorf("%s %s: %+v", c.EvalID, m.Metric, m)
			}
		}
	}
	// The cassette folder itself also serves as the expectation (golden run).
	r = adkproxy(t, nil, "score", "--cassettes", dir, "--expected", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "\nPASSED: 3 of 3 cases passed") {
		t.Errorf("golden folder: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestExportExitStatuses(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	aFile := filepath.Join(tmp, "file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	empty := filepath.Join(tmp, "empty")
	os.MkdirAll(empty, 0o755)
	for _, tc := range []struct {
		code int
		args []string
		in   string
	}{
		{exitUsage, []string{"export"}, "--cassettes PATH is required"},
		{exitUsage, []string{"export", "--cassettes", weatherCassette, "--format", "csv"}, `--format "csv": want evalset`},
		{exitUsage, []string{"export", "--cassettes", weatherCassette, "out.json"}, "name different cassettes"},
		{exitDataErr, []string{"export", "--cassettes", filepath.Join(tmp, "missing")}, "does not exist"},
		{exitDataErr, []string{"export", "--cassettes", empty}, "no recorded session in"},
		{exitCantWrite, []string{"export", "--cassettes", weatherCassette, "--out", filepath.Join(aFile, "x.evalset.json")}, "--out:"},
	} {
		r := adkproxy(t, nil, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, "adkproxy: ") || !strings.Contains(r.stderr, tc.in) || strings.Count(r.stderr, "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.in)
		}
	}
}

func TestExportDefaultID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, out, want string }{
		{"examples/weather/cassettes", "", "cassettes"},
		{"testdata/cassettes/", "", "cassettes"},
		{"x", "evals/home.evalset.json", "home"},
		{"x", "home.json", "home"},
		{"x", "my-set v2.evalset.json", "my_set_v2"},
		{"x", ".evalset.json", "_evalset"},
		{"/", "", "adkproxy"},
	} {
		if got := exportDefaultID(tc.dir, tc.out); got != tc.want {
			t.Errorf("exportDefaultID(%q, %q) = %q, want %q", tc.dir, tc.out, got, tc.want)
		}
	}
}
