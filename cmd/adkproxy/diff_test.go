package main

import (
	"bytes"
	"encoding/json"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The diff command on recorded runs: what it prints and its exit statuses,
// version 1 files, errors, and HTTP tool calls recorded through the
// forward proxy. What a diff finds is rundiff's
// (internal/feature/report/rundiff/recorded_runs_test.go).

// diffJSON runs diff --format json and reads its document back as
// rundiff's report.
func diffJSON(t *testing.T, args ...string) (*rundiff.Report, result) {
	t.Helper()
	r := adkproxy(t, nil, append([]string{"diff", "--format", "json"}, args...)...)
	var doc rundiff.Report
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\nstdout %s\nstderr %s", r.code, err, r.stdout, r.stderr)
	}
	return &doc, r
}

// TestDiffPrintsTheReport: diff prints rundiff's report of the two runs
// it loads in each format, byte for byte (html into --out, nothing on
// stdout), and its summary line on stderr; colour only when asked for
// (or on a terminal); the policy flags pick the exit status, and --ignore
// and --config reach the comparison. What the report says is rundiff's
// (internal/feature/report/rundiff/recorded_runs_test.go).
func TestDiffPrintsTheReport(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", weatherScenario())
	new := recordScenario(t, "new", refactoredScenario())
	report, err := diffRuns(old, new, rundiff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text, colored, md, doc, page bytes.Buffer
	for _, err := range []error{rundiff.WriteText(&text, report, false), rundiff.WriteText(&colored, report, true),
		rundiff.WriteMarkdown(&md, report), rundiff.WriteJSON(&doc, report), htmlreport.WriteDiff(&page, report)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	line := rundiff.SummaryLine(report) + "\n"
	out := filepath.Join(t.TempDir(), "diff.html")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", old, new}, text.String()},
		{[]string{"diff", "--color", "never", old, new}, text.String()},
		{[]string{"diff", "--color", "always", old, new}, colored.String()},
		{[]string{"diff", "--format", "markdown", old, new}, md.String()},
		{[]string{"diff", "--format", "json", old, new}, doc.String()},
		{[]string{"diff", "--format", "html", "--out", out, old, new}, ""},
	} {
		if r := adkproxy(t, nil, tc.args...); r.code != 0 || r.stdout != tc.want || r.stderr != line {
			t.Errorf("%v: exit %d, stderr %q (want %q), stdout:\n%s\nwant:\n%s", tc.args, r.code, r.stderr, line, r.stdout, tc.want)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != page.String() {
		t.Errorf("--out %s is not the page:\n%s", out, b)
	}
	if text.String() == colored.String() || doc.String() == md.String() {
		t.Fatal("the formats do not differ")
	}

	cfg := writeTemp(t, "cfg.json", `{"criteria": {"tool_trajectory_avg_score": 1}, "adkproxy": {"arg_matchers": {"get_weather": {"units": "ignore"}}}}`)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--fail-on", "args", old, new}, 1, "1 args_changed"},
		{[]string{"--fail-on", "tools", old, new}, 1, "1 tool_added"},
		{[]string{"--min-rouge", "0.99", old, new}, 1, "response similarity"},
		{[]string{"--fail-on", "none", "--min-rouge", "0.1", old, new}, 0, ""},
		{[]string{"--ignore", "units", "--fail-on", "args", old, new}, 0, ""},
		{[]string{"--config", cfg, "--fail-on", "args", old, new}, 0, ""},
		{[]string{"--fail-on", "any", "--min-rouge", "1", old, old}, 0, ""},
	} {
		if r := adkproxy(t, nil, append([]string{"diff"}, tc.args...)...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", tc.args, r.code, tc.code, r.stderr, tc.want)
		}
	}
}

// A version 1 file (interactions, no sessions) is organised as replay
// would and compares like the version 2 file it was made from; two files
// are compared whatever their names.
func TestDiffVersion1File(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", weatherScenario())
	new := recordScenario(t, "new", refactoredScenario())
	v1 := filepath.Join(t.TempDir(), "golden.yaml")
	writeVersion1(t, filepath.Join(old, "default.yaml"), v1)
	want, _ := diffJSON(t, old, new)
	got, r := diffJSON(t, v1, filepath.Join(new, "default.yaml"))
	total := 0
	for _, n := range got.Summary.Changes {
		total += n
	}
	if r.code != 0 || !reflectEqual(got.Summary.Changes, want.Summary.Changes) || total != 3 {
		t.Errorf("version 1: exit %d, %v, want %v\n%s", r.code, got.Summary.Changes, want.Summary.Changes, r.stderr)
	}
}

func TestDiffUsageAndDataErrors(t *testing.T) {
	t.Parallel()
	dir := recordScenario(t, "run", weatherScenario())
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff", dir}, 64, "want two paths"},
		{[]string{"diff", dir, dir, "--fail-on", "all"}, 64, `--fail-on "all"`}, // read after the paths too
		{[]string{"diff", "--format", "yaml", dir, dir}, 64, `--format "yaml"`},
		{[]string{"diff", "--fail-on", "all", dir, dir}, 64, `--fail-on "all"`},
		{[]string{"diff", "--color", "sometimes", dir, dir}, 64, `--color "sometimes"`},
		{[]string{"diff", "--ignore", "a[", dir, dir}, 64, "unclosed ["},
		{[]string{"diff", "--min-rouge", "2", dir, dir}, 64, "--min-rouge 2"},
		{[]string{"diff", dir, filepath.Join(dir, "missing")}, 65, "NEW: "},
		{[]string{"diff", "--config", filepath.Join(dir, "missing.json"), dir, dir}, 65, "--config"},
		{[]string{"diff", "--out", filepath.Join(dir, "default.yaml", "x.json"), dir, dir}, 73, "--out"},
	} {
		r := adkproxy(t, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", tc.args, r.code, tc.code, r.stderr, tc.want)
		}
	}
}

// A tool's HTTP requests (recorded through the forward proxy) align with
// the agent's tool calls: a query parameter that changed is an argument
// change of the request, beside the one of the call that made it.
func TestDiffHTTPToolCalls(t *testing.T) {
	t.Parallel()
	withAPI := func(units string) *scenario {
		sc := weatherScenario().Clone()
		sc.HTTPTools = map[string]string{"get_weather": "/v1/current"}
		sc.Sessions[0][0].Replies["weather_agent"][0].Calls[0].Args["units"] = units
		return sc
	}
	old := recordScenario(t, "old", withAPI("celsius"))
	new := recordScenario(t, "new", withAPI("fahrenheit"))
	doc, r := diffJSON(t, old, new)
	if len(doc.Cassettes) != 1 || len(doc.Cassettes[0].Sessions) != 1 || len(doc.Cassettes[0].Sessions[0].Invocations) != 2 {
		t.Fatalf("exit %d, not one session of two invocations: %+v\n%s", r.code, doc.Cassettes, r.stderr)
	}
	changes := doc.Cassettes[0].Sessions[0].Invocations[0].Changes
	want := []rundiff.Change{
		{Kind: "args_changed", Agent: "weather_agent", Tool: "get_weather", Path: "units", Old: `"celsius"`, New: `"fahrenheit"`},
		{Kind: "args_changed", Agent: "weather_agent", Tool: "http GET weather.example.test/v1/current", Path: "units", Old: `"celsius"`, New: `"fahrenheit"`},
	}
	if r.code != 0 || len(changes) != 2 || changes[0] != want[0] || changes[1] != want[1] || len(doc.Summary.Changes) != 1 || doc.Summary.Changes[rundiff.ArgsChanged] != 2 {
		t.Fatalf("exit %d, changes %+v, want %+v\n%s", r.code, changes, want, r.stderr)
	}
	tools := doc.Cassettes[0].Sessions[0].Invocations[1].Tools
	if len(tools) != 2 || tools[1].Name != "http GET weather.example.test/v1/current" || tools[1].Status != "same" {
		t.Errorf("the Tokyo turn's calls: %+v", tools)
	}
	text := adkproxy(t, nil, "diff", old, new)
	if !strings.Contains(text.stdout, `~ weather_agent: http GET weather.example.test/v1/current(city="Paris", units="fahrenheit")`) {
		t.Errorf("text:\n%s", text.stdout)
	}
	page := adkproxy(t, nil, "diff", "--format", "html", old, new)
	for _, want := range []string{
		`<div class="item http mono args_changed" data-status="args_changed">⇄ http GET weather.example.test/v1/current?city=Paris&amp;units=celsius → 200</div>`,
		`<div class="item http mono args_changed" data-status="args_changed">⇄ http GET weather.example.test/v1/current?city=Paris&amp;units=fahrenheit → 200</div>`,
	} {
		if !strings.Contains(page.stdout, want) {
			t.Errorf("the page's timelines lack %s", want)
		}
	}
}
