package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
	junit "github.com/joshdk/go-junit"
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

func TestImportConformanceCorpus(t *testing.T) {
	t.Parallel()
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	out := t.TempDir()
	r := adkproxy(t, nil, "import", "adk-conformance", corpus, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "imported 7 case(s) into "+out+": 22 model call(s)") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	loaded, err := cassettes.LoadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"core/multi_001", "core/sys_instruction_001", "core/generate_content_config_001", "tool/function_001"} {
		if loaded[name] == nil {
			t.Errorf("no cassette %s in %s (have %d)", name, out, len(loaded))
		}
	}
	// ls reads them as sessions of invocations of steps, agents named.
	ls := adkproxy(t, nil, "ls", filepath.Join(out, "core", "multi_001.yaml"))
	if ls.code != 0 || !strings.Contains(ls.stdout, "agents: study_buddy_coordinator, math_tutor") {
		t.Errorf("ls: exit %d\n%s%s", ls.code, ls.stdout, ls.stderr)
	}
}

func TestImportConformanceReportsUnconvertible(t *testing.T) {
	t.Parallel()
	corpus := t.TempDir()
	dir := filepath.Join(corpus, "tests", "core", "bad_001")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("spec.yaml", "agent: a\nuser_messages: [{text: hi}]\n")
	write("generated-recordings.yaml", `recordings:
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash, contents: [{role: user, parts: [{text: hi}]}]}
      llm_response: {content: {role: model, parts: [{text: ok}]}}
  - user_message_index: 0
    agent_name: a
    llm_recording:
      llm_request: {model: gemini-2.5-flash, contents: [{role: user, parts: [{txet: hi}]}]}
      llm_response: {content: {role: model, parts: [{text: ok}]}}
`)
	out := t.TempDir()
	r := adkproxy(t, nil, "import", "adk-conformance", corpus, "--out", out)
	if r.code != exitDataErr {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, exitDataErr, r.stderr)
	}
	want := filepath.Join(dir, "generated-recordings.yaml") + `:10: llm_request.contents[0].parts[0]: "txet" is not a field of Part`
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	c, err := cassettes.Load(filepath.Join(out, "core", "bad_001.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 {
		t.Errorf("%d calls written, want the 1 that converted", len(c.Exchanges))
	}
}

func TestImportConformanceUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"import"},
		{"import", "bogus-format"},
		{"import", "adk-conformance", t.TempDir()},
		{"import", "adk-conformance", "--out", t.TempDir()},
		{"import", "adk-conformance", t.TempDir(), "--out", t.TempDir(), "extra"},
		{"import", "adk-conformance", t.TempDir(), "--bogus", "x"},
	} {
		if r := adkproxy(t, nil, args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
	if r := adkproxy(t, nil, "import", "adk-conformance", t.TempDir(), "--out", t.TempDir()); r.code != exitDataErr || !strings.Contains(r.stderr, "no case found") {
		t.Errorf("empty corpus: exit %d\n%s", r.code, r.stderr)
	}
	// --out is a file: nothing can be written under it.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	if r := adkproxy(t, nil, "import", "adk-conformance", corpus, "--out", notDir); r.code != exitCantWrite {
		t.Errorf("--out a file: exit %d, want %d\n%s", r.code, exitCantWrite, r.stderr)
	}
}

// TestExportADKRecordings: a case imported, then exported with the real
// binary, gives ADK recordings with the original's entries in order.
func TestExportADKRecordings(t *testing.T) {
	t.Parallel()
	corpus, out := importSharedCorpus(t)
	file := filepath.Join(t.TempDir(), "generated-recordings.yaml")
	r := adkproxy(t, nil, "export", "--format", "adk-recordings", "--out", file, filepath.Join(out, "tool", "function_001.yaml"))
	if r.code != 0 || !strings.Contains(r.stderr, `wrote ADK recordings of cassette "tool/function_001"`) {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	got, err := conformance.ReadRecordings(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := conformance.ReadRecordings(filepath.Join(corpus, "tests", "tool", "function_001", "generated-recordings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != len(want.Entries) {
		t.Fatalf("%d recordings, want %d", len(got.Entries), len(want.Entries))
	}
	for i, w := range want.Entries {
		g := got.Entries[i]
		if g.AgentName != w.AgentName || g.UserMessageIndex != w.UserMessageIndex || (g.LLM == nil) != (w.LLM == nil) {
			t.Errorf("recording %d: %s/%d llm %v, want %s/%d llm %v", i, g.AgentName, g.UserMessageIndex, g.LLM != nil, w.AgentName, w.UserMessageIndex, w.LLM != nil)
		}
		if w.Tool != nil && g.Tool != nil && (g.Tool.Call.Name != w.Tool.Call.Name || fmt.Sprint(g.Tool.Response.Response) != fmt.Sprint(w.Tool.Response.Response)) {
			t.Errorf("tool recording %d: %+v, want %+v", i, g.Tool, w.Tool)
		}
	}
	// A folder of several cassettes is not one case.
	if r := adkproxy(t, nil, "export", "--format", "adk-recordings", out); r.code != exitUsage || !strings.Contains(r.stderr, "give one cassette file") {
		t.Errorf("folder: exit %d\n%s", r.code, r.stderr)
	}
}

// TestReplayMatchConformance: the real binary answers an imported case's
// calls by key when another language words the instruction differently,
// lists the findings in /_adkproxy/report and the --report file, and
// passes the run.
func TestReplayMatchConformance(t *testing.T) {
	t.Parallel()
	_, dir := importSharedCorpus(t)
	cas, err := cassettes.Load(filepath.Join(dir, "tool", "function_001.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	var stderr bytes.Buffer
	cmd, base := startOnLoopback(t, &stderr, "replay", "--cassettes", dir, "--match", "conformance", "--report", report)
	for i, x := range cas.Exchanges {
		body := strings.Replace(string(x.Request.Body), "You are a booking assistant.", "You are a booking assistant (JS).", 1)
		req, _ := http.NewRequest(http.MethodPost, base+x.Request.Path, strings.NewReader(body))
		req.Header.Set("X-Adkproxy-Cassette", cas.Name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Equal(got, x.Response.Body) {
			t.Fatalf("call %d: status %d %s", i, resp.StatusCode, got)
		}
	}
	resp, err := http.Get(base + "/_adkproxy/report")
	if err != nil {
		t.Fatal(err)
	}
	live, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("replay: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "conformance findings: 4 model call(s) answered by key differ from the recording (system_instruction 4)") {
		t.Errorf("summary:\n%s", stderr.String())
	}
	saved, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for what, doc := range map[string][]byte{"/_adkproxy/report": live, "--report": saved} {
		var r struct {
			Outcomes []struct {
				Outcome     string
				Conformance *matcher.ConformanceKey
				Findings    []matcher.Finding
			}
		}
		if err := json.Unmarshal(doc, &r); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(r.Outcomes) != 4 {
			t.Fatalf("%s: %d outcomes\n%s", what, len(r.Outcomes), doc)
		}
		for i, o := range r.Outcomes {
			want := matcher.ConformanceKey{UserMessage: 0, Agent: "booking_assistant", Call: i}
			if o.Outcome != "matched" || o.Conformance == nil || *o.Conformance != want || len(o.Findings) != 1 ||
				o.Findings[0].Group != matcher.GroupSystemInstruction || o.Findings[0].Diffs[0].Path != "systemInstruction.parts[0].text" {
				t.Errorf("%s outcome %d: %+v", what, i, o)
			}
		}
	}
}

// importSharedCorpus imports the shared corpus copy with the real binary
// and returns the corpus and the cassettes folder.
func importSharedCorpus(t *testing.T) (corpus, out string) {
	t.Helper()
	corpus = testutil.SharedDir(t, "fixtures", "adk-conformance")
	out = t.TempDir()
	if r := adkproxy(t, nil, "import", "adk-conformance", corpus, "--out", out); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	return corpus, out
}

// A corpus file that is a link to /dev/zero is refused at once, exit 65
// naming it, instead of being read until memory runs out.
func TestImportConformanceRefusesALinkToDevZero(t *testing.T) {
	t.Parallel()
	corpus := t.TempDir()
	dir := filepath.Join(corpus, "tests", "core", "zero_001")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "spec.yaml"), []byte("agent: a\nuser_messages: [{text: hi}]\n"), 0o644)
	link := filepath.Join(dir, "generated-recordings.yaml")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	r := adkproxy(t, nil, "import", "adk-conformance", corpus, "--out", t.TempDir())
	if r.code != exitDataErr || !strings.Contains(r.stderr, link+": not a regular file: it is a device") {
		t.Errorf("exit %d, want 65 naming %s\nstderr:\n%s", r.code, link, r.stderr)
	}
}
