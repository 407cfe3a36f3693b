package conformancerun_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/adk/conformancerun"
	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/matcher"
)

var update = flag.Bool("update", false, "rewrite testdata/adkjs-results.json from this run")

// goldenADKJS is the checked-in outcome of the shared corpus against
// ADK-JS 2.0.0's API server.
const goldenADKJS = "testdata/adkjs-results.json"

// TestCorpusAgainstADKJS runs the shared corpus cases against ADK-JS's API
// server, offline and with no key, with the two event fields ADK-JS never
// writes (avgLogprobs, modelVersion) left out, so that each case shows its
// real first difference, and checks every case's result (status, reason,
// findings) against the checked-in expected outcome. A FAIL there is
// ADK-JS behaving differently from ADK Python, documented in
// docs/conformance.md; run with -update to rewrite it after a deliberate
// change, and review the diff.
func TestCorpusAgainstADKJS(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	var progress bytes.Buffer
	res, err := conformancerun.Run(t.Context(), conformancerun.Options{
		Corpus: corpus, ServerCmd: adkjstest.ServerCmdTemplate(t), Profile: conformance.DefaultProfile,
		IgnoreEventFields: []string{"avgLogprobs", "modelVersion"}, Work: t.TempDir(), Progress: &progress,
	})
	if err != nil {
		t.Fatalf("Run: %v\nprogress:\n%s", err, progress.String())
	}
	if len(res.Cases) != 7 {
		t.Fatalf("%d cases, want the 7 shared ones", len(res.Cases))
	}
	got, err := json.MarshalIndent(res.Cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(goldenADKJS, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenADKJS)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gotFile := filepath.Join(testutil.OutDir(t), "adkjs-results.json")
		_ = os.WriteFile(gotFile, got, 0o644)
		t.Errorf("the results differ from %s (this run's are in %s; go test -run %s -update rewrites it)", goldenADKJS, gotFile, t.Name())
	}
	var table bytes.Buffer
	if err := conformancerun.WriteTable(&table, res); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
}

// TestAgentsThatCannotLoadAreSkipped: a case whose agent has no
// root_agent.yaml, and one whose agent uses a tool ADK-JS has no port of,
// are SKIPped with the reason; the server's own words for the second.
func TestAgentsThatCannotLoadAreSkipped(t *testing.T) {
	shared := testutil.SharedDir(t, "fixtures", "adk-conformance")
	corpus := t.TempDir()
	if err := os.CopyFS(filepath.Join(corpus, "agents"), os.DirFS(filepath.Join(shared, "agents"))); err != nil {
		t.Fatal(err)
	}
	// The sys_instruction case, pointed at other agents.
	src := filepath.Join(shared, "tests", "core", "sys_instruction_001")
	for name, agent := range map[string]string{"no_root_001": "multi_agent_002", "no_tool_001": "tools_agent_007"} {
		dir := filepath.Join(corpus, "tests", "core", name)
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		spec, _ := os.ReadFile(filepath.Join(dir, "spec.yaml"))
		spec = bytes.Replace(spec, []byte("agent: core_agent_001"), []byte("agent: "+agent), 1)
		if err := os.WriteFile(filepath.Join(dir, "spec.yaml"), spec, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := conformancerun.Run(t.Context(), conformancerun.Options{
		Corpus: corpus, ServerCmd: adkjstest.ServerCmdTemplate(t), Profile: conformance.DefaultProfile, Work: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"core/no_root_001": {"multi_agent_002", "no root_agent.yaml"},
		"core/no_tool_001": {"tools_agent_007", "ExampleTool not found in registry"},
	}
	for _, c := range res.Cases {
		if c.Status != conformancerun.Skip {
			t.Errorf("%s: %s (%s), want SKIP", c.Name, c.Status, c.Reason)
			continue
		}
		if strings.Contains(c.Reason, "adkjs:") {
			t.Errorf("%s: reason %q speaks of adkjs, not of the server", c.Name, c.Reason)
		}
		for _, w := range want[c.Name] {
			if !strings.Contains(c.Reason, w) {
				t.Errorf("%s: reason %q does not mention %q", c.Name, c.Reason, w)
			}
		}
	}
	if res.Failed() || len(res.Cases) != 2 {
		t.Errorf("result = %+v", res)
	}
}

// TestSSECaseRunsInStreamingMode: a -sse case (here the sys_instruction
// case's recordings served as a streamed run) is driven with streaming on,
// so ADK-JS calls streamGenerateContent, which the imported SSE answers
// match: with the fields ADK-JS writes differently left out (avgLogprobs;
// partial, which its streamed events carry as false) it PASSes, and no
// finding is about the method or path.
func TestSSECaseRunsInStreamingMode(t *testing.T) {
	shared := testutil.SharedDir(t, "fixtures", "adk-conformance")
	corpus := t.TempDir()
	if err := os.CopyFS(filepath.Join(corpus, "agents"), os.DirFS(filepath.Join(shared, "agents"))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(corpus, "tests", "core", "sys_instruction_001")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(shared, "tests", "core", "sys_instruction_001"))); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"generated-recordings.yaml": "generated-recordings-sse.yaml", "generated-session.yaml": "generated-session-sse.yaml"} {
		if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := conformancerun.Run(t.Context(), conformancerun.Options{
		Corpus: corpus, ServerCmd: adkjstest.ServerCmdTemplate(t), Work: t.TempDir(),
		IgnoreEventFields: []string{"avgLogprobs", "partial"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 1 || res.Cases[0].Name != "core/sys_instruction_001-sse" {
		t.Fatalf("cases = %+v", res.Cases)
	}
	c := res.Cases[0]
	if c.Status != conformancerun.Pass {
		t.Errorf("%s: %s (%s), want PASS; notes %v", c.Name, c.Status, c.Reason, c.Notes)
	}
	for _, g := range c.ByGroup() {
		if g.Group == matcher.GroupOther {
			t.Errorf("findings about the method or path: %+v", g.Diffs)
		}
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	for _, tc := range []struct {
		o    conformancerun.Options
		want string
	}{
		{conformancerun.Options{Corpus: corpus, ServerCmd: "adk api_server {agents_dir}"}, "has no {port}"},
		{conformancerun.Options{Corpus: corpus, ServerCmd: "x {port}", Cases: "core/["}, "not a glob"},
		{conformancerun.Options{Corpus: corpus, ServerCmd: "x {port}", Cases: "nothing/*"}, `--cases "nothing/*" matches none of the 7 case(s)`},
		{conformancerun.Options{Corpus: t.TempDir(), ServerCmd: "x {port}"}, "no case found"},
	} {
		_, err := conformancerun.Run(t.Context(), tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) = %v, want an error mentioning %q", tc.o, err, tc.want)
		}
	}
}

// TestServerThatDoesNotStart: every case of its agent FAILs, naming the
// command and quoting its output.
func TestServerThatDoesNotStart(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	res, err := conformancerun.Run(t.Context(), conformancerun.Options{
		Corpus: corpus, ServerCmd: "echo no server here for {agents_dir} on {port}; exit 3", Cases: "core/sys_*", Work: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 1 || res.Cases[0].Status != conformancerun.Fail {
		t.Fatalf("cases = %+v", res.Cases)
	}
	for _, want := range []string{"exited (exit status 3)", "no server here for", "/list-apps"} {
		if !strings.Contains(res.Cases[0].Reason, want) {
			t.Errorf("reason %q does not mention %q", res.Cases[0].Reason, want)
		}
	}
}

// TestWrongPrefixFailsAtOnce: ADK-JS serves the API at the root; asked under
// /api it answers list-apps with 404, and the case FAILs at once (not after
// the two-minute start timeout) saying so, with the hint.
func TestWrongPrefixFailsAtOnce(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	res, err := conformancerun.Run(t.Context(), conformancerun.Options{
		Corpus: corpus, ServerCmd: adkjstest.ServerCmdTemplate(t), Prefix: "/api", Cases: "core/sys_*", Work: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 1 || res.Cases[0].Status != conformancerun.Fail {
		t.Fatalf("cases = %+v", res.Cases)
	}
	for _, want := range []string{"answers, but not at", "/api/list-apps: HTTP 404 Not Found", "wrong --prefix?"} {
		if !strings.Contains(res.Cases[0].Reason, want) {
			t.Errorf("reason %q does not mention %q", res.Cases[0].Reason, want)
		}
	}
}
