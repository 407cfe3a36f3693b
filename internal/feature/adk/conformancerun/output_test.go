package conformancerun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/adkproxy/adkproxy/matcher"
)

// sampleResult has one case of each status, findings in two groups (one
// with more differences than a text report shows) and a note.
func sampleResult() *Result {
	key := matcher.ConformanceKey{UserMessage: 0, Agent: "coordinator", Call: 0}
	var many []matcher.Difference
	for i := range maxShownDiffs + 2 {
		many = append(many, matcher.Difference{Path: "tools[0].functionDeclarations[" + string(rune('0'+i)) + "].description", Kind: matcher.Changed, Recorded: `"a"`, Got: `"b"`})
	}
	return &Result{
		Corpus: "corpus", ServerCmd: "adk api_server {agents_dir} -p {port}", Profile: "default",
		Cases: []CaseResult{
			{Name: "core/a_001", Agent: "core_agent_001", Status: Pass},
			{Name: "core/b_001", Agent: "multi_agent_001", Status: Fail, Reason: "event 2 (author math_tutor): content.parts[0].text differs",
				Calls: []CallFindings{{Key: key, Findings: []matcher.Finding{
					{Group: matcher.GroupSystemInstruction, Diffs: []matcher.Difference{{Path: "systemInstruction.parts[0].text", Kind: matcher.Changed, Words: "You are [-an agent-]{+a helper+}"}}},
					{Group: matcher.GroupTools, Diffs: many},
				}}},
				Notes: []string{"unmatched: user message 1, agent math_tutor, call 0"}},
			{Name: "tool/c_001", Agent: "tools_agent_007", Status: Skip, Reason: "agent tools_agent_007 cannot load: Tool ExampleTool not found in registry"},
		},
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"STATUS  CASE        AGENT\nPASS    core/a_001  core_agent_001\nFAIL    core/b_001  multi_agent_001\nSKIP    tool/c_001  tools_agent_007\n",
		"\ncore/b_001: FAIL: event 2 (author math_tutor): content.parts[0].text differs\n  system instruction (1):\n    user message 0, agent coordinator, call 0: systemInstruction.parts[0].text: changed: You are [-an agent-]{+a helper+}\n  tool declarations (7):\n",
		"    … and 2 more (--format json lists them all)\n  note: unmatched: user message 1, agent math_tutor, call 0\n",
		"\ntool/c_001: SKIP: agent tools_agent_007 cannot load: Tool ExampleTool not found in registry\n",
		"\n3 cases: 1 PASS, 1 FAIL, 1 SKIP\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "core/a_001: PASS") {
		t.Errorf("a passing case without findings got a details block:\n%s", out)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Counts map[string]int
		Cases  []struct {
			Name, Status, Reason string
			Calls                []struct {
				Key      matcher.ConformanceKey
				Findings []matcher.Finding
			}
		}
		Summary string
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.Counts["PASS"] != 1 || got.Counts["FAIL"] != 1 || got.Counts["SKIP"] != 1 || len(got.Cases) != 3 {
		t.Errorf("counts %v, %d cases", got.Counts, len(got.Cases))
	}
	if c := got.Cases[1]; len(c.Calls) != 1 || c.Calls[0].Key.Agent != "coordinator" || len(c.Calls[0].Findings[1].Diffs) != maxShownDiffs+2 {
		t.Errorf("the JSON does not hold every finding: %+v", c)
	}
}

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(b.Bytes())
	if err != nil || len(suites) != 1 {
		t.Fatalf("go-junit: %v\n%s", err, b.String())
	}
	s := suites[0]
	s.Aggregate()
	if s.Totals.Tests != 3 || s.Totals.Passed != 1 || s.Totals.Failed != 1 || s.Totals.Skipped != 1 {
		t.Errorf("totals %+v\n%s", s.Totals, b.String())
	}
	fail := s.Tests[1]
	if fail.Classname != "core" || fail.Name != "b_001" || !strings.Contains(fail.Message, "content.parts[0].text differs") ||
		!strings.Contains(fail.SystemOut, "system instruction (1):") {
		t.Errorf("failed testcase = %+v", fail)
	}
	if skip := s.Tests[2]; !strings.Contains(skip.Message, "ExampleTool") {
		t.Errorf("skipped testcase = %+v", skip)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## ❌ adkproxy conformance\n\n3 cases: 1 PASS, 1 FAIL, 1 SKIP; server `adk api_server {agents_dir} -p {port}`, profile `default`\n",
		"| ❌ FAIL | `core/b_001` | `multi_agent_001` | event 2 \\(author math\\_tutor\\): content.parts\\[0\\].text differs |\n",
		"| ⏭️ SKIP | `tool/c_001` |",
		"\n### core/b\\_001\n\n- system instruction \\(1\\):\n  - user message 0, agent coordinator, call 0: ",
		"- note: unmatched: user message 1, agent math\\_tutor, call 0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}
