package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// TestReplayModesAndReportThroughTheCLI: the wrapped command asks two
// questions while recording; on replay it asks only the first (the agent
// "stopped early"), so strict replay fails with 76 and the report says
// which recording went unused; lenient replay passes with a warning.
func TestReplayModesAndReportThroughTheCLI(t *testing.T) {
	t.Parallel()
	up := scriptedUpstream(t)
	defer up.Close()
	dir := testutil.OutDir(t)
	for _, q := range []string{"first question", "second question"} {
		r := adkproxy(t, []string{"QUESTION=" + q}, append([]string{"record", "--mode", "new-episodes", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
		if r.code != 0 {
			t.Fatalf("record %q: exit %d\n%s", q, r.code, r.stderr)
		}
	}
	report := filepath.Join(testutil.OutDir(t), "report.json")
	strict := adkproxy(t, []string{"QUESTION=first question"}, append([]string{"replay", "--cassettes", dir, "--report", report}, self("ask")...)...)
	if strict.code != exitUnmatched || !strings.Contains(strict.stderr, "1 recording(s) unused") || !strings.Contains(strict.stderr, `"second question"`) {
		t.Fatalf("strict: exit %d\n%s", strict.code, strict.stderr)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Mode     string         `json:"mode"`
		Counts   map[string]int `json:"counts"`
		Outcomes []struct {
			Outcome, User string
		} `json:"outcomes"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Mode != "replay" || r.Counts["matched"] != 1 || r.Counts["unused"] != 1 || len(r.Outcomes) != 2 || r.Outcomes[1].User != "second question" {
		t.Fatalf("report %s", raw)
	}

	lenient := adkproxy(t, []string{"QUESTION=first question"}, append([]string{"replay", "--mode", "lenient", "--cassettes", dir}, self("ask")...)...)
	if lenient.code != 0 || !strings.Contains(lenient.stderr, "unused") {
		t.Fatalf("lenient: exit %d\n%s", lenient.code, lenient.stderr)
	}
	if bad := adkproxy(t, nil, "replay", "--mode", "sloppy", "--cassettes", dir); bad.code != exitUsage {
		t.Fatalf("bad --mode: exit %d", bad.code)
	}
	if bad := adkproxy(t, nil, "replay", "--ignore", "a[", "--cassettes", dir); bad.code != exitUsage {
		t.Fatalf("bad --ignore: exit %d", bad.code)
	}
}

// TestRecordOnceFailsLikeStrictReplay: record --mode once on a cassette that
// exists replays it strictly, so a request without a recording and the
// recordings it left unused fail the run with 76, as replay does, and the
// cassette is left as it was.
func TestRecordOnceFailsLikeStrictReplay(t *testing.T) {
	t.Parallel()
	up := scriptedUpstream(t)
	defer up.Close()
	dir := testutil.OutDir(t)
	if r := adkproxy(t, []string{"QUESTION=first question"}, append([]string{"record", "--mode", "once", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...); r.code != 0 {
		t.Fatalf("record once into a new cassette: exit %d\n%s", r.code, r.stderr)
	}
	file := filepath.Join(dir, "default.yaml")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	again := adkproxy(t, []string{"QUESTION=first question"}, append([]string{"record", "--mode", "once", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
	if again.code != 0 {
		t.Fatalf("record once, same request: exit %d\n%s", again.code, again.stderr)
	}
	other := adkproxy(t, []string{"QUESTION=another question"}, append([]string{"record", "--mode", "once", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
	if other.code != exitUnmatched {
		t.Fatalf("record once, a request with no recording: exit %d, want %d\n%s", other.code, exitUnmatched, other.stderr)
	}
	for _, want := range []string{"1 unmatched", "1 unused", "adkproxy record --mode overwrite"} {
		if !strings.Contains(other.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, other.stderr)
		}
	}
	if strings.Contains(other.stderr, "--mode lenient") || strings.Contains(other.stderr, "--allow-repeats") {
		t.Errorf("stderr suggests a replay-only flag to a record run:\n%s", other.stderr)
	}
	if after, err := os.ReadFile(file); err != nil || string(after) != string(before) {
		t.Fatalf("record once changed the existing cassette (err %v)", err)
	}
	if bad := adkproxy(t, nil, "record", "--mode", "always", "--cassettes", dir); bad.code != exitUsage ||
		!strings.Contains(bad.stderr, `--mode: record mode "always": unknown mode (want overwrite, once, new-episodes or passthrough)`) {
		t.Fatalf("bad record --mode: exit %d\n%s", bad.code, bad.stderr)
	}
}
