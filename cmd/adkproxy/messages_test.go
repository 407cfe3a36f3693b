// Tests of what the CLI tells the user at the end of a run.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// recordQuestions records one session per question into a new folder.
func recordQuestions(t *testing.T, questions ...string) string {
	t.Helper()
	up := scriptedUpstream(t)
	t.Cleanup(up.Close)
	dir := testutil.OutDir(t)
	for _, q := range questions {
		r := adkproxy(t, []string{"QUESTION=" + q}, append([]string{"record", "--mode", "new-episodes", "--cassettes", dir, "--upstream", up.URL}, self("ask")...)...)
		if r.code != 0 {
			t.Fatalf("record %q: exit %d\n%s", q, r.code, r.stderr)
		}
	}
	return dir
}

// More problems than the summary shows: it names the --report file that
// holds them all, and says how to get one when none was asked for.
func TestSummaryNamesTheReportFile(t *testing.T) {
	t.Parallel()
	var questions []string
	for i := range 7 {
		questions = append(questions, fmt.Sprintf("question %d", i))
	}
	dir := recordQuestions(t, questions...)
	report := filepath.Join(t.TempDir(), "run report.json")
	ask := []string{"QUESTION=question 0"}
	r := adkproxy(t, ask, append([]string{"replay", "--cassettes", dir, "--report", report}, self("ask")...)...)
	if r.code != exitUnmatched || !strings.Contains(r.stderr, "6 recording(s) unused") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if want := "  … 1 more in " + report + "\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	r = adkproxy(t, ask, append([]string{"replay", "--cassettes", dir}, self("ask")...)...)
	if want := "  … 1 more: run with --report FILE to see them all\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("without --report, stderr lacks %q:\n%s", want, r.stderr)
	}
}

// A lenient replay already accepts differences: its warnings do not advise
// --mode lenient, while strict replay's errors still do.
func TestLenientWarningsDoNotAdviseLenient(t *testing.T) {
	t.Parallel()
	dir := recordQuestions(t, "first question")
	changed := []string{"QUESTION=first question", `EXTRA=,"generationConfig":{"temperature":0.5}`}
	lenient := adkproxy(t, changed, append([]string{"replay", "--mode", "lenient", "--cassettes", dir}, self("ask")...)...)
	if lenient.code != 0 || !strings.Contains(lenient.stderr, "mismatched (served, lenient)") || !strings.Contains(lenient.stderr, "generationConfig") {
		t.Fatalf("lenient: exit %d\n%s", lenient.code, lenient.stderr)
	}
	if strings.Contains(lenient.stderr, "--mode lenient") {
		t.Errorf("a lenient run advises --mode lenient:\n%s", lenient.stderr)
	}
	strict := adkproxy(t, changed, append([]string{"replay", "--cassettes", dir}, self("ask")...)...)
	if strict.code != exitUnmatched || !strings.Contains(strict.stderr, "--mode lenient") {
		t.Errorf("strict: exit %d, want the lenient hint:\n%s", strict.code, strict.stderr)
	}
}

// One change that makes every request differ is listed once, with a count
// of the later requests it explains.
func TestSummaryFoldsFollowOnMismatches(t *testing.T) {
	t.Parallel()
	dir := recordQuestions(t, "first question", "second question", "third question")
	extra := `EXTRA=,"generationConfig":{"temperature":0.5}`
	// In one run: the client asks all three, each differing the same way.
	r := adkproxy(t, []string{"QUESTION=first question", extra}, append([]string{"replay", "--mode", "lenient", "--cassettes", dir}, "--", "sh", "-c",
		`"$@" && QUESTION="second question" "$@" && QUESTION="third question" "$@"`, "sh", "env", clientModeEnv+"=ask", os.Args[0])...)
	if r.code != 0 || !strings.Contains(r.stderr, "3 mismatched") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "\n  mismatched"); n != 1 {
		t.Errorf("%d mismatches listed, want 1:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "\n    2 later request(s) differ because of this change\n") {
		t.Errorf("no follow-on count:\n%s", r.stderr)
	}
}

// A mismatch's detail prints as lines in the text log, and stays one
// escaped value a line with --log-format json (or ADKPROXY_LOG_FORMAT).
// (Asked for no format, a wrapped command's run leaves it to the summary.)
func TestLogDetailLinesAndJSON(t *testing.T) {
	t.Parallel()
	dir := recordQuestions(t, "first question")
	changed := []string{"QUESTION=first question", `EXTRA=,"generationConfig":{"temperature":0.5}`}
	text := adkproxy(t, changed, append([]string{"replay", "--mode", "lenient", "--log-format", "text", "--cassettes", dir}, self("ask")...)...)
	if !strings.Contains(text.stderr, "\n  detail: cassette \"default\", session 1") ||
		!strings.Contains(text.stderr, "\n      generationConfig: added {\"temperature\":0.5}\n") || strings.Contains(text.stderr, `detail="`) {
		t.Errorf("text log:\n%s", text.stderr)
	}
	for _, run := range [][]string{
		append(append([]string{}, changed...), "ADKPROXY_LOG_FORMAT=json"),
		changed,
	} {
		args := []string{"replay", "--mode", "lenient", "--cassettes", dir}
		if len(run) == len(changed) {
			args = append(args, "--log-format", "json")
		}
		r := adkproxy(t, run, append(args, self("ask")...)...)
		records := 0
		for _, line := range strings.Split(r.stderr, "\n") {
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("not JSON: %q", line)
			}
			if d, _ := rec["detail"].(string); strings.Contains(d, "\n  generationConfig: added") {
				records++
			}
		}
		if records != 1 {
			t.Errorf("%v: %d JSON records with the detail:\n%s", run, records, r.stderr)
		}
	}
	if bad := adkproxy(t, nil, "replay", "--log-format", "xml", "--cassettes", dir); bad.code != exitUsage || !strings.Contains(bad.stderr, "--log-format must be plain, text or json") {
		t.Errorf("bad --log-format: exit %d, %s", bad.code, bad.stderr)
	}
}

// A recording whose command fails before any key reached adkproxy (the SDK
// found none) says so and names the variables; a failure with a key, or a
// run without a failure, does not.
func TestRecordWithoutAKeySaysSo(t *testing.T) {
	t.Parallel()
	// Google's host, routed to a fake: from any other upstream no key is needed.
	public := newTestCA(t)
	up := testutil.StartCounting(t, scriptedHandler(t), public.Leaf)
	record := func(env []string, command ...string) result {
		return adkproxy(t, env, append([]string{"record", "--cassettes", t.TempDir(), "--upstream", proxy.DefaultUpstream,
			"--connect-to", "generativelanguage.googleapis.com:443=" + up.Addr(), "--upstream-ca", public.CertPath, "--"}, command...)...)
	}
	client := []string{"env", clientModeEnv + "=ask", os.Args[0]}
	const none = "no API key reached adkproxy"
	r := record(nil, "env", clientModeEnv+"=exit3", os.Args[0])
	if r.code != 3 || !strings.Contains(r.stderr, none) || !strings.Contains(r.stderr, "GOOGLE_API_KEY or GEMINI_API_KEY") || !strings.Contains(r.stderr, "x-goog-api-key") {
		t.Errorf("no request: exit %d\n%s", r.code, r.stderr)
	}
	if r := record([]string{"QUESTION=hi"}, append([]string{"sh", "-c", `"$@"; exit 3`, "sh"}, client...)...); r.code != 3 || !strings.Contains(r.stderr, none) {
		t.Errorf("a request without a key: exit %d\n%s", r.code, r.stderr)
	}
	if r := record([]string{"QUESTION=hi", "GOOGLE_API_KEY=" + testutil.SecretAPIKey}, append([]string{"sh", "-c", `"$@"; exit 3`, "sh"}, client...)...); r.code != 3 || strings.Contains(r.stderr, none) {
		t.Errorf("a request with a key: exit %d\n%s", r.code, r.stderr)
	}
	if r := record([]string{"QUESTION=hi"}, client...); r.code != 0 || strings.Contains(r.stderr, none) {
		t.Errorf("a run that passed: exit %d\n%s", r.code, r.stderr)
	}
}
