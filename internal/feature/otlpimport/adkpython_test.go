package otlpimport

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/adkpytest"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
)

// adkTrace runs testdata/adk_trace.py: a one-tool agent of ADK for Python
// 1.18, two turns of one session, against the scripted Gemini API, its
// spans written by ADK's own tracing and exported as OTLP/JSON.
func adkTrace(t *testing.T, capture string) string {
	t.Helper()
	env := adkpytest.Env(t)
	fake := httptest.NewServer(&fakegemini.Handler{})
	t.Cleanup(fake.Close)
	script, err := filepath.Abs(filepath.Join("testdata", "adk_trace.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", script, `["I am ana.silva@example.com. How warm is it in Lisbon", "And in Porto"]`)
	cmd.Env = append(env, "GOOGLE_GEMINI_BASE_URL="+fake.URL, "GOOGLE_API_KEY=placeholder",
		"ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS="+capture)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ADK for Python: %v\n%s", err, stderr.String())
	}
	return writeExport(t, stdout.Bytes())
}

// ADK for Python 1.18's own spans, content captured (its default): every
// model call is rebuilt, the two turns are one session, and the planted
// email (the user's text) and card number (a tool result) are replaced
// everywhere they reached.
func TestADKPythonTrace(t *testing.T) {
	file := adkTrace(t, "true")
	out := filepath.Join(t.TempDir(), "case")
	res, err := Import(file, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 1 || res.Invocations != 2 || res.Calls != 4 || len(res.Missing) != 0 {
		t.Fatalf("result %+v", res)
	}
	// ADK's session ids are UUIDs and its invocation ids e-<UUID>: kept.
	if id := res.SessionIDs[0].ID; strings.HasPrefix(id, "<") || len(id) != 36 {
		t.Errorf("session id %q", id)
	}
	for _, f := range []string{res.Cassette, res.EvalSet} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Contains(s, "ana.silva@") || strings.Contains(s, "4111 1111") || !strings.Contains(s, "<EMAIL_1>") || !strings.Contains(s, "<CARD_1>") {
			t.Errorf("%s: planted values or their placeholders:\n%s", f, s)
		}
	}
	set := evalSetOf(t, res.EvalSet)
	inv := set.EvalCases[0].Conversation[0]
	if inv.UserContent.Parts[0].Text != "I am <EMAIL_1>. How warm is it in Lisbon" || inv.FinalResponse == nil ||
		!strings.Contains(inv.FinalResponse.Parts[0].Text, "Lisbon") || len(inv.IntermediateData.ToolUses) != 1 {
		t.Errorf("invocation 1 %+v", inv)
	}
}

// Without content capture ADK 1.18 leaves out every body, argument and
// result: the case keeps the two turns' tool trajectories by name, no
// cassette is written, and each span says what it lacks.
func TestADKPythonTraceWithoutContent(t *testing.T) {
	file := adkTrace(t, "false")
	res, err := Import(file, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cassette != "" || res.Sessions != 1 || res.Invocations != 2 {
		t.Fatalf("result %+v", res)
	}
	var all []string
	for _, m := range res.Missing {
		all = append(all, m.String())
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"(call_llm): no gcp.vertex.agent.llm_request and gcp.vertex.agent.llm_response; ADK writes them only when it captures message content",
		"(execute_tool get_weather): no gcp.vertex.agent.tool_call_args and gcp.vertex.agent.tool_response;",
		"no span of the trace carries the user's text",
		"it is the trace's last model call: the eval case's invocation has no final response",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing lacks %q:\n%s", want, text)
		}
	}
	set := evalSetOf(t, res.EvalSet)
	for i, inv := range set.EvalCases[0].Conversation {
		if len(inv.IntermediateData.ToolUses) != 1 || inv.IntermediateData.ToolUses[0]["name"] != "get_weather" {
			t.Errorf("invocation %d: %+v", i+1, inv.IntermediateData)
		}
	}
}
