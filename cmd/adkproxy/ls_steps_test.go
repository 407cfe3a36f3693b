package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// twoAgentModel answers a root agent that calls get_weather, then
// transfers to "clock", which calls get_time and answers (streamed when
// asked to stream).
var twoAgentModel = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	answered := bytes.Contains(body, []byte("functionResponse"))
	var parts string
	switch clock := bytes.Contains(body, []byte(`internal name is \"clock\"`)); {
	case !clock && !answered:
		parts = `{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}`
	case !clock:
		parts = `{"functionCall": {"name": "transfer_to_agent", "args": {"agent_name": "clock"}}}`
	case !answered:
		parts = `{"functionCall": {"name": "get_time", "args": {"city": "Paris"}}}`
	default:
		parts = `{"text": "It is 18°C in Paris and 14:05."}`
	}
	answer := `{"candidates": [{"content": {"role": "model", "parts": [` + parts + `]}, "finishReason": "STOP"}],
	  "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}, "modelVersion": "gemini-2.5-flash"}`
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: "+strings.Join(strings.Fields(answer), " ")+"\r\n\r\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, answer)
})

// runTwoAgents is one invocation of twoAgentModel's agents through base:
// root's two steps, then clock's, its last one streamed. timeResult is
// what get_time returns.
func runTwoAgents(t *testing.T, base, timeResult string) error {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "steps-test-key-0123456789", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base}})
	if err != nil {
		t.Fatal(err)
	}
	agent := func(name string) *genai.GenerateContentConfig {
		return &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(`You are an agent. Your internal name is "`+name+`".`, genai.RoleUser)}
	}
	user := genai.NewContentFromText("What is the weather and the time in Paris?", genai.RoleUser)
	step := func(name string, contents []*genai.Content, result map[string]any) ([]*genai.Content, error) {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, agent(name))
		if err != nil {
			return nil, err
		}
		call := resp.FunctionCalls()[0]
		return append(contents, resp.Candidates[0].Content,
			genai.NewContentFromFunctionResponse(call.Name, result, genai.RoleUser)), nil
	}
	root, err := step("root", []*genai.Content{user}, map[string]any{"temp_c": 18})
	if err == nil {
		_, err = step("root", root, map[string]any{})
	}
	var clock []*genai.Content
	if err == nil {
		clock, err = step("clock", []*genai.Content{user}, map[string]any{"time": timeResult})
	}
	if err == nil {
		for _, err = range client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", clock, agent("clock")) {
			if err != nil {
				break
			}
		}
	}
	return err
}

// TestLsNumbersStepsOneAfterAnother: the steps of an invocation that two
// agents share, with tool results in between and a streamed last step,
// are numbered 0, 1, 2, 3 by ls (text and json), and a replay mismatch
// names the step by the number ls shows.
func TestLsNumbersStepsOneAfterAnother(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	upstream := httptest.NewServer(twoAgentModel)
	defer upstream.Close()
	var stderr bytes.Buffer
	cmd, base := startOnLoopback(t, &stderr, "record", "--cassettes", dir, "--upstream", upstream.URL, "--log-level", "error")
	if err := runTwoAgents(t, base, "14:05"); err != nil {
		t.Fatalf("recording: %v", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("adkproxy record: %v\n%s", err, stderr.String())
	}

	r := adkproxy(t, nil, "ls", "--cassettes", dir, "--json")
	doc := lsDecode(t, r.stdout)
	if r.code != 0 || len(doc.Cassettes) != 1 || len(doc.Cassettes[0].Sessions) != 1 || len(doc.Cassettes[0].Sessions[0].Invocations) != 1 {
		t.Fatalf("ls --json: exit %d, want one invocation:\n%s%s", r.code, r.stdout, r.stderr)
	}
	var got []string
	for _, s := range doc.Cassettes[0].Sessions[0].Invocations[0].Steps {
		got = append(got, fmt.Sprintf("%d %s", s.Step, s.Agent))
	}
	if want := []string{"0 root", "1 root", "2 clock", "3 clock"}; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("ls --json steps %q, want %q", got, want)
	}
	text := adkproxy(t, nil, "ls", "--cassettes", dir).stdout
	var shown []string
	for _, m := range regexp.MustCompile(`(?m)^\s+step (\d+)\s+(\S+)`).FindAllStringSubmatch(text, -1) {
		shown = append(shown, m[1]+" "+m[2])
	}
	if strings.Join(shown, ", ") != strings.Join(got, ", ") {
		t.Errorf("ls shows steps %q, ls --json %q:\n%s", shown, got, text)
	}

	// Replay names the step whose request changed as ls does.
	cmd, base = startOnLoopback(t, &stderr, "replay", "--cassettes", dir, "--log-level", "error")
	if err := runTwoAgents(t, base, "15:05"); err == nil {
		t.Errorf("replay answered a changed tool result")
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if !strings.Contains(stderr.String(), "step 3, agent clock") {
		t.Errorf("replay's mismatch does not name step 3 of clock:\n%s", stderr.String())
	}
}
