package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/runview"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
)

// lsWeatherDir is the shipped example, seen from this package's folder.
const lsWeatherDir = "../../examples/weather/cassettes"

// TestLsPrintsTheRunViews: ls prints runview's table, with --json or
// --format json its JSON document, with --format html htmlreport's page, of the cassettes it loads, on stdout
// with nothing on stderr. What the views say is runview's
// (internal/feature/report/runview/loaded_test.go).
func TestLsPrintsTheRunViews(t *testing.T) {
	t.Parallel()
	v1 := t.TempDir()
	lsWriteFile(t, filepath.Join(v1, "suite", "chat.yaml"), "version: 1\ninteractions:\n"+
		"  - request: {method: POST, path: /v1beta/models/m:generateContent, body: '{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}'}\n"+
		"    response: {status: 200, body: '{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hello\"}]}}]}'}\n"+
		"  - request: {method: GET, path: /v1beta/models}\n    response: {status: 200, body: '{}'}\n")
	lsWriteFile(t, filepath.Join(v1, "a.yaml"), "version: 2\nname: alpha\n")
	for _, path := range []string{lsWeatherDir, filepath.Join(lsWeatherDir, "default.yaml"), v1} {
		dir, loaded, err := cassettes.LoadPath(path)
		if err != nil {
			t.Fatal(err)
		}
		run := recorded.Build(dir, loaded)
		var table, doc, page bytes.Buffer
		runview.WriteTable(&table, dir, run)
		if err := runview.WriteJSON(&doc, run); err != nil {
			t.Fatal(err)
		}
		if err := htmlreport.WriteRun(&page, dir, run); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"ls", "--cassettes", path}, table.String()},
			{[]string{"ls", path}, table.String()},
			{[]string{"ls", "--cassettes", path, "--json"}, doc.String()},
			{[]string{"ls", "--cassettes", path, "--format", "json"}, doc.String()},
			{[]string{"ls", "--cassettes", path, "--format", "html"}, page.String()},
		} {
			r := adkproxy(t, nil, tc.args...)
			if r.code != 0 || r.stderr != "" || r.stdout != tc.want {
				t.Errorf("%v: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", tc.args, r.code, r.stderr, r.stdout, tc.want)
			}
		}
		if strings.Count(table.String(), "CASSETTE ") != len(loaded) {
			t.Errorf("%s: the table has not one block per cassette:\n%s", path, table.String())
		}
	}
}

func TestLsErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lsWriteFile(t, filepath.Join(dir, "bad.yaml"), "version: 1\nname: x\ninteractions:\n  - request: {method: GET, path: /x}\n    response: {status: 999}\n")
	if r := adkproxy(t, nil, "ls", "--cassettes", dir); r.code != exitDataErr || !strings.Contains(r.stderr, "bad.yaml:5:") || r.stdout != "" {
		t.Errorf("corrupt file: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	lsWriteFile(t, filepath.Join(dir, "bad.yaml"), "version: 7\n")
	if r := adkproxy(t, nil, "ls", "--cassettes", dir); r.code != exitDataErr || !strings.Contains(r.stderr, "bad.yaml:1:") {
		t.Errorf("unknown version: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := adkproxy(t, nil, "ls", "--cassettes", filepath.Join(dir, "missing")); r.code != exitDataErr || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("missing folder: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"ls"},
		{"ls", "--json"},
		{"ls", "--cassettes", dir, "extra"},
		{"ls", "--cassettes", dir, "--no-such-flag"},
	} {
		r := adkproxy(t, nil, args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "adkproxy: ") || strings.Count(r.stderr, "\n") > 2 {
			t.Errorf("%v: exit %d, stderr %q; want 64 and a short message", args, r.code, r.stderr)
		}
	}
	if r := adkproxy(t, nil, "ls"); !strings.Contains(r.stderr, "--cassettes") {
		t.Errorf("missing --cassettes: stderr %q does not name the flag", r.stderr)
	}
}

func TestLsFlagsFromEnvironment(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, []string{"ADKPROXY_CASSETTES=" + lsWeatherDir}, "ls")
	if r.code != 0 || !strings.Contains(r.stdout, "1 session, 2 invocations") {
		t.Fatalf("ADKPROXY_CASSETTES: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = adkproxy(t, []string{"ADKPROXY_CASSETTES=" + lsWeatherDir, "ADKPROXY_JSON=true"}, "ls")
	if doc := lsDecode(t, r.stdout); r.code != 0 || len(doc.Cassettes) != 1 {
		t.Fatalf("ADKPROXY_JSON: exit %d\n%s", r.code, r.stdout)
	}
}

func TestLsEmptyFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := adkproxy(t, nil, "ls", "--cassettes", dir); r.code != 0 || r.stdout != "no cassettes in "+dir+"\n" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if r := adkproxy(t, nil, "ls", "--cassettes", dir, "--json"); r.code != 0 || strings.Join(strings.Fields(r.stdout), "") != `{"cassettes":[]}` {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func lsDecode(t *testing.T, out string) runview.Document {
	t.Helper()
	var doc runview.Document
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not the ls JSON document: %v\n%s", err, out)
	}
	return doc
}

func lsWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

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
