package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
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
		!strings.Contains(bad.stderr, `--mode: record mode "always": unknown mode (want overwrite, once, new-episodes, refresh or passthrough)`) {
		t.Fatalf("bad record --mode: exit %d\n%s", bad.code, bad.stderr)
	}
}

// buildWeather builds the demo agent (examples/weather, the official Go
// client) once for the tests that wrap it, beside the adkproxy binary
// TestMain built, and returns its path.
func buildWeather(t *testing.T) string {
	t.Helper()
	weatherBuild.Do(func() {
		bin := filepath.Join(filepath.Dir(adkproxyBin), "weather-agent")
		out, err := exec.Command("go", "build", "-o", bin, "../../examples/weather").CombinedOutput()
		weatherBuild.bin, weatherBuild.err = bin, err
		if err != nil {
			weatherBuild.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if weatherBuild.err != nil {
		t.Fatalf("building examples/weather: %v", weatherBuild.err)
	}
	return weatherBuild.bin
}

var weatherBuild struct {
	sync.Once
	bin string
	err error
}

// TestReplayFaultWithTheExampleCassette: with the shipped cassette, a 429
// at the first model call passes the agent that retries once and fails,
// with 76, the one that does not (its harness ignoring the agent's
// failure: only the recordings left unused tell), naming the fault.
func TestReplayFaultWithTheExampleCassette(t *testing.T) {
	t.Parallel()
	weather := buildWeather(t)
	dir := "../../examples/weather/cassettes"

	r := adkproxy(t, []string{"WEATHER_RETRIES=1"}, "replay", "--cassettes", dir, "--fault", "call 1: 429", "--", weather)
	if r.code != 0 || !strings.Contains(r.stdout, "agent: It is 24°C in Tokyo, clear.") ||
		!strings.Contains(r.stderr, `fault "call 1: 429" injected at POST /v1beta/models/gemini-2.5-flash:generateContent (model call 1, cassette "default", session 1, invocation 1 ("What is the weather in Paris?"), step 0, agent gemini-2.5-flash): recovered`) {
		t.Errorf("retrying agent: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	report := filepath.Join(t.TempDir(), "report.json")
	r = adkproxy(t, nil, "replay", "--cassettes", dir, "--fault", "call 1: 429", "--report", report, "--", "sh", "-c", weather+" || echo agent gave up")
	if r.code != 76 || !strings.Contains(r.stdout, "agent gave up") || !strings.Contains(r.stderr, "Error 429") ||
		!strings.Contains(r.stderr, "the agent did not recover") || !strings.Contains(r.stderr, "4 recording(s) unused") ||
		strings.Contains(r.stderr, "no request reached adkproxy") {
		t.Errorf("agent without retries: exit %d (want 76)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), `"fault": "call 1: 429"`) || !strings.Contains(string(b), `"recovered": false`) {
		t.Errorf("--report: %s, %v", b, err)
	}
}

// TestFaultFlagsAndFile: --faults reads a YAML list (an unquoted spec
// too); a bad spec or file exits 64 naming it.
func TestFaultFlagsAndFile(t *testing.T) {
	t.Parallel()
	weather := buildWeather(t)
	dir := "../../examples/weather/cassettes"
	file := filepath.Join(t.TempDir(), "faults.yaml")
	os.WriteFile(file, []byte("faults:\n  - call 1: 503\n  - 'call 2: reset'\n"), 0o644)
	r := adkproxy(t, []string{"WEATHER_RETRIES=2"}, "replay", "--cassettes", dir, "--faults", file, "--", weather)
	if r.code != 0 || strings.Count(r.stderr, ": recovered") != 2 {
		t.Errorf("--faults: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	os.WriteFile(file, []byte("faults:\n  - call 1: 503\n  - call x: reset\n"), 0o644)
	for _, args := range [][]string{{"--fault", "call 1: 299"}, {"--faults", file}, {"--faults", file + ".missing"}} {
		r := adkproxy(t, nil, append([]string{"replay", "--cassettes", dir}, append(args, "--", "true")...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, args[0]+": ") {
			t.Errorf("%v: exit %d, stderr %q; want 64 naming the flag", args, r.code, r.stderr)
		}
	}
	if r := adkproxy(t, nil, "replay", "--cassettes", dir, "--faults", file, "--", "true"); !strings.Contains(r.stderr, "faults.yaml:3: faults[1]") {
		t.Errorf("a bad spec in the file is not named by line: %s", r.stderr)
	}
}

// TestFakeCommand: adkproxy fake serves its script and prints the export
// lines; a missing or broken script exits 64 naming the file and line.
func TestFakeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "turns.yaml")
	os.WriteFile(script, []byte("turns:\n  - model:\n      - txt: hello\n"), 0o644)
	for args, want := range map[string]string{
		"":                         "fake needs --script FILE",
		"--script " + script:       "turns.yaml:3: turns[0].model[0]: line 3: unknown key \"txt\"",
		"--script " + script + "x": "no such file",
	} {
		r := adkproxy(t, nil, append([]string{"fake"}, strings.Fields(args)...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("fake %s: exit %d, stderr %q; want 64 and %q", args, r.code, r.stderr, want)
		}
	}
	os.WriteFile(script, []byte("turns:\n  - model:\n      - text: hello\n"), 0o644)
	addrFile := filepath.Join(dir, "addr")
	cmd := adkproxyCmd(t, nil, "fake", "--script", script, "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := waitForFile(t, addrFile)
	resp, err := http.Post("http://"+addr+"/v1beta/models/gemini-2.5-flash:generateContent", "application/json",
		strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"text": "hello"`) || !strings.Contains(string(body), `"promptTokenCount": 1`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if !strings.Contains(stdout.String(), "export GOOGLE_GEMINI_BASE_URL=http://"+addr) {
		t.Errorf("stdout: %s", stdout.String())
	}
}

// Tests of what the CLI tells the user at the end of a run.

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

// TestJournalSymlinkDoesNotOverwriteItsTarget is issue 11's reproduction:
// `ln -s ../outside/victim.txt cas/.name.yaml.journal`, then record the
// cassette "name". The victim stays as it was, nothing is forwarded for a
// cassette that cannot be written safely, and the run says what it refused.
func TestJournalSymlinkDoesNotOverwriteItsTarget(t *testing.T) {
	t.Parallel()
	upstream := &fakegemini.Handler{}
	up := httptest.NewServer(upstream)
	defer up.Close()
	root := t.TempDir()
	cas, outside := filepath.Join(root, "cas"), filepath.Join(root, "outside")
	os.MkdirAll(cas, 0o755)
	os.MkdirAll(outside, 0o755)
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	if err := os.Symlink("../outside/victim.txt", filepath.Join(cas, ".name.yaml.journal")); err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, []string{"QUESTION=hi"}, append([]string{"record", "--cassettes", cas, "--cassette", "name", "--upstream", up.URL}, self("ask")...)...)
	if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
		t.Fatalf("victim.txt was overwritten through the journal link: %q\nstderr %s", got, r.stderr)
	}
	if !strings.Contains(r.stderr, "symbolic link") || !strings.Contains(r.stderr, ".name.yaml.journal") {
		t.Errorf("the run does not say what it refused:\n%s", r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "400 ") || !strings.Contains(r.stdout, "symbolic link") {
		t.Errorf("the client was not told: %s", r.stdout)
	}
	if n := len(upstream.Requests()); n != 0 {
		t.Errorf("%d request(s) forwarded for a cassette that cannot be written", n)
	}
}

// TestReplayRefusesAFolderWithADeviceCassette is issue 39 item 13: `replay
// --cassettes DIR -- true` where DIR holds only a link to /dev/zero exits
// 65 naming the file, as `ls DIR` does, instead of 0 naming nothing.
func TestReplayRefusesAFolderWithADeviceCassette(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, args := range [][]string{{"replay", "--cassettes", dir, "--", "true"}, {"ls", dir}} {
		r := adkproxy(t, nil, args...)
		if r.code != 65 || !strings.Contains(r.stderr, zero) {
			t.Errorf("%v: exit %d, want 65 naming %s\n%s", args, r.code, zero, r.stderr)
		}
	}
}
