package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestFile writes data to dir/name and returns the path.
func writeTestFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A config adk eval accepts, with safety_v1 beside computed criteria: the
// case PASSED by ADK's rule (NOT_EVALUATED criteria are skipped), so the run
// passes, and stderr says which criterion was skipped and why;
// --require-all fails it.
func TestScoreSkipsNotEvaluatedAsADK(t *testing.T) {
	cfg := writeTestFile(t, t.TempDir(), "test_config.json", `{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8, "safety_v1": 0.8}}`)
	args := []string{"score", "--cassettes", weatherCassette, "--expected", weatherEvalSet, "--config", cfg}
	r := adkproxy(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "CASE paris_then_tokyo  PASSED") ||
		!strings.Contains(r.stdout, "\nPASSED: 1 of 1 case passed; 2 of 3 criteria passed (1 NOT_EVALUATED)\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "adkproxy: not evaluated, skipped when judging their cases") ||
		!strings.Contains(r.stderr, `case "paris_then_tokyo": safety_v1: `) || !strings.Contains(r.stderr, "Vertex AI") {
		t.Errorf("stderr does not name the skipped criterion and why:\n%s", r.stderr)
	}

	r = adkproxy(t, nil, append(args, "--require-all")...)
	if r.code != exitFailure || !strings.Contains(r.stdout, "\nNOT_EVALUATED: 1 of 1 case passed; 2 of 3 criteria passed (1 NOT_EVALUATED)\n") ||
		!strings.Contains(r.stderr, "--require-all: the run fails") {
		t.Errorf("--require-all: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, []string{"ADKPROXY_REQUIRE_ALL=true"}, args...)
	if r.code != exitFailure {
		t.Errorf("ADKPROXY_REQUIRE_ALL=true: exit %d, want 1", r.code)
	}
}
