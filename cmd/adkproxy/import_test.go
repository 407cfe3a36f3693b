package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testutil"
)

func TestImportConformanceCorpus(t *testing.T) {
	corpus := testutil.SharedDir(t, "fixtures", "adk-conformance")
	out := t.TempDir()
	r := adkproxy(t, nil, "import", "adk-conformance", corpus, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "imported 4 case(s) into "+out+": 10 model call(s)") {
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
	for _, args := range [][]string{
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
}
