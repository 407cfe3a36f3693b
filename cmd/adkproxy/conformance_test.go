package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestConformanceAgainstADKJS runs one corpus case against ADK-JS's API
// server through the CLI, offline and with no key: ADK-JS's events lack
// the avgLogprobs ADK Python's have, so the case FAILs (exit 76) with that
// first difference, in a JUnit report written to --out, and the summary on
// stderr.
func TestConformanceAgainstADKJS(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	report := filepath.Join(t.TempDir(), "conformance.xml")
	res := adkproxy(t, nil, "conformance", "--corpus", corpus, "--server-cmd", adkjstest.ServerCmdTemplate(t),
		"--cases", "core/sys_*", "--format", "junit", "--out", report)
	if res.code != exitUnmatched {
		t.Fatalf("exit %d, want %d (a case FAILED)\nstdout:\n%s\nstderr:\n%s", res.code, exitUnmatched, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "conformance: FAIL core/sys_instruction_001") || !strings.Contains(res.stderr, "1 case: 0 PASS, 1 FAIL, 0 SKIP") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(b)
	if err != nil || len(suites) != 1 || len(suites[0].Tests) != 1 {
		t.Fatalf("the --out report is not the JUnit of one case: %v\n%s", err, b)
	}
	tc := suites[0].Tests[0]
	if tc.Classname != "core" || tc.Name != "sys_instruction_001" || tc.Status != junit.StatusFailed ||
		!strings.Contains(tc.Message, "tests/core/sys_instruction_001/generated-session.yaml:30") || !strings.Contains(tc.Message, "avgLogprobs: removed") {
		t.Errorf("testcase = %+v", tc)
	}
	if !strings.Contains(tc.SystemOut, "system instruction (3):") {
		t.Errorf("the findings are not in the testcase's output:\n%s", tc.SystemOut)
	}
}

// TestConformanceIgnoringEventFields: with the fields ADK-JS does not
// write left out, the plain agents PASS and
// multi_001 FAILs at its real difference: ADK-JS's transfer_to_agent does
// not take ADK Python's agent_name, so no transfer happens.
func TestConformanceIgnoringEventFields(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	res := adkproxy(t, nil, "conformance", "--corpus", corpus, "--server-cmd", adkjstest.ServerCmdTemplate(t),
		"--cases", "core/*", "--ignore-event-field", "avgLogprobs", "--ignore-event-field", "modelVersion", "--format", "json")
	if res.code != exitUnmatched {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, exitUnmatched, res.stdout, res.stderr)
	}
	var got struct {
		IgnoredEventFields []string `json:"ignored_event_fields"`
		Cases              []struct{ Name, Status, Reason string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	want := map[string]string{"core/generate_content_config_001": "PASS", "core/multi_001": "FAIL", "core/sys_instruction_001": "PASS"}
	if len(got.Cases) != len(want) || strings.Join(got.IgnoredEventFields, ",") != "avgLogprobs,modelVersion" {
		t.Fatalf("result = %+v", got)
	}
	for _, c := range got.Cases {
		if c.Status != want[c.Name] {
			t.Errorf("%s: %s (%s), want %s", c.Name, c.Status, c.Reason, want[c.Name])
		}
		if c.Name == "core/multi_001" && !strings.Contains(c.Reason, `actions: removed (recorded {"transferToAgent":"math_tutor"})`) {
			t.Errorf("multi_001's reason: %s", c.Reason)
		}
	}
}

func TestConformanceUsageErrors(t *testing.T) {
	t.Parallel()
	corpus := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"conformance", "--server-cmd", "x {port}"}, exitUsage, "--corpus and --server-cmd are required"},
		{[]string{"conformance", "--corpus", corpus, "--server-cmd", "x {agents_dir}"}, exitUsage, "has no {port}"},
		{[]string{"conformance", "--corpus", corpus, "--server-cmd", "x {port}", "--format", "html"}, exitUsage, `--format "html"`},
		{[]string{"conformance", "--corpus", corpus, "--server-cmd", "x {port}", "--profile", "tools,colour"}, exitUsage, `"colour" is not`},
		{[]string{"conformance", "--corpus", corpus, "--server-cmd", "x {port}", "--cases", "a/["}, exitUsage, "--cases"},
		{[]string{"conformance", "--corpus", corpus, "--server-cmd", "x {port}"}, exitFailure, "no case found"},
	} {
		res := adkproxy(t, nil, tc.args...)
		if res.code != tc.code || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tc.args, res.code, res.stderr, tc.code, tc.want)
		}
	}
}
