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

	"github.com/adkproxy/adkproxy/internal/feature/report/runview"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
)

// lsWeatherDir is the shipped example, seen from this package's folder.
const lsWeatherDir = "../../examples/weather/cassettes"

func TestLsShippedExample(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "ls", "--cassettes", lsWeatherDir)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"CASSETTE default (" + filepath.Join(lsWeatherDir, "default.yaml") + "): 1 session, 2 invocations, 4 steps\n",
		"\n  session 1\n",
		`"What is the weather in Paris?"`,
		`"And what about Tokyo?"`,
		`tools: get_weather(city="Paris")`,
		`tools: get_weather(city="Tokyo")`,
		"tokens: 20", // 7 + 13
		"tokens: 40", // 17 + 23
		`→ get_weather(city="Paris")`,
		`← get_weather → "It is 18°C in Paris, clear."`,
		`← get_weather → "It is 24°C in Tokyo, clear."`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "other") || strings.Contains(r.stdout, "HTTP") || strings.Contains(r.stdout, "finish:") {
		t.Errorf("nothing unusual in the example, yet:\n%s", r.stdout)
	}
	// Columns line up across invocations, even with steps in between.
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	column := func(prefix, word string) {
		t.Helper()
		at := -1
		for _, line := range lines {
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			i := strings.Index(line, word)
			if at >= 0 && i != at {
				t.Errorf("%q not aligned in lines starting %q:\n%s", word, prefix, r.stdout)
				return
			}
			at = i
		}
		if at < 0 {
			t.Errorf("no line starting %q has %q", prefix, word)
		}
	}
	column("    invocation ", "agents:")
	column("    invocation ", "tokens:")
	column("      step ", "agent")
	for _, line := range lines {
		if strings.TrimRight(line, " ") != line {
			t.Errorf("trailing spaces in %q", line)
		}
	}
}

func TestLsJSON(t *testing.T) {
	t.Parallel()
	r := adkproxy(t, nil, "ls", "--cassettes", lsWeatherDir, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	doc := lsDecode(t, r.stdout)
	if len(doc.Cassettes) != 1 {
		t.Fatalf("%d cassettes", len(doc.Cassettes))
	}
	c := doc.Cassettes[0]
	if c.Name != "default" || c.File != "default.yaml" || len(c.Sessions) != 1 || len(c.Other) != 0 {
		t.Fatalf("cassette %q file %q: %d sessions, %d other", c.Name, c.File, len(c.Sessions), len(c.Other))
	}
	invs := c.Sessions[0].Invocations
	if c.Sessions[0].ID != 1 || len(invs) != 2 {
		t.Fatalf("session %d with %d invocations", c.Sessions[0].ID, len(invs))
	}
	for i, city := range []string{"Paris", "Tokyo"} {
		inv := invs[i]
		if inv.ID != i+1 || len(inv.Steps) != 2 || strings.Join(inv.Agents, ",") != "agent" || !strings.Contains(inv.User, city) {
			t.Fatalf("invocation %d: %+v", i+1, inv)
		}
		call, answer := inv.Steps[0], inv.Steps[1]
		if call.Step != 0 || call.Status != 200 || len(call.ToolCalls) != 1 || call.ToolCalls[0].Name != "get_weather" || call.ToolCalls[0].Args["city"] != city {
			t.Errorf("invocation %d step 0: %+v", i+1, call)
		}
		if answer.Step != 1 || len(answer.ToolResults) != 1 || answer.ToolResults[0].Name != "get_weather" || answer.ToolResults[0].Response["city"] != city ||
			answer.Text != "It is "+map[string]string{"Paris": "18", "Tokyo": "24"}[city]+"°C in "+city+", clear." || answer.FinishReason != "STOP" {
			t.Errorf("invocation %d step 1: %+v", i+1, answer)
		}
		if call.Usage == nil || answer.Usage == nil || call.Usage.Total+answer.Usage.Total != []int32{20, 40}[i] || answer.LatencyMs <= 0 {
			t.Errorf("invocation %d: usage %+v, %+v, latency %v", i+1, call.Usage, answer.Usage, answer.LatencyMs)
		}
	}
	// Stable shape: every key present, empty lists as [], no tag when none.
	var raw map[string][]map[string]any
	json.Unmarshal([]byte(r.stdout), &raw)
	cas := raw["cassettes"][0]
	if other, ok := cas["other"].([]any); !ok || len(other) != 0 {
		t.Errorf("other = %#v, want []", cas["other"])
	}
	inv := cas["sessions"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	if _, ok := inv["tag"]; ok {
		t.Errorf("tag present without a tag: %v", inv)
	}
	step := inv["steps"].([]any)[0].(map[string]any)
	for _, k := range []string{"step", "agent", "status", "tool_calls", "tool_results", "text", "finish_reason", "usage", "latency_ms"} {
		if _, ok := step[k]; !ok {
			t.Errorf("step lacks %q: %v", k, step)
		}
	}
	if results, ok := step["tool_results"].([]any); !ok || len(results) != 0 {
		t.Errorf("tool_results = %#v, want []", step["tool_results"])
	}
}

// TestLsOrganizesVersion1: a flat version 1 file is grouped into sessions
// and invocations as replay would; a retry after a 429 stays in its
// invocation, and other requests are listed (identical ones counted).
func TestLsOrganizesVersion1(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := "Plan a three-day trip to Kyoto for me,\nwith temples, food markets and a day trip to Nara please."
	turn1 := lsContents(lsUserTurn(first))
	answer1 := map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Day 1: Kinkaku-ji"}}}
	turn2 := lsContents(lsUserTurn(first), answer1, lsUserTurn("Make it two days."))
	exhausted := `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`
	call := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"plan_trip","args":{"city":"Kyoto","days":2}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":5,"totalTokenCount":35}}`
	v1 := "version: 1\ninteractions:\n" +
		lsV1Interaction("GET", "/v1beta/models", "", 200, `{"models":[]}`) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:generateContent", turn1, 200,
			`{"candidates":[{"content":{"role":"model","parts":[{"text":"Day 1: Kinkaku-ji"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":10,"totalTokenCount":30}}`) +
		lsV1Interaction("GET", "/v1beta/models", "", 200, `{"models":[]}`) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:generateContent", turn2, 429, exhausted) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:generateContent", turn2, 200, call) +
		lsV1Interaction("POST", "/v1beta/models/gemini-2.5-flash:countTokens", turn2, 200, `{"totalTokens":31}`)
	lsWriteFile(t, filepath.Join(dir, "suite", "chat.yaml"), v1)              // named by its path: suite/chat
	lsWriteFile(t, filepath.Join(dir, "a.yaml"), "version: 2\nname: alpha\n") // named in the file
	lsWriteFile(t, filepath.Join(dir, ".chat.yaml.tmp-1.yaml"), "not: [a cassette")

	r := adkproxy(t, nil, "ls", "--cassettes", dir, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	doc := lsDecode(t, r.stdout)
	if len(doc.Cassettes) != 2 || doc.Cassettes[0].Name != "alpha" || doc.Cassettes[0].File != "a.yaml" ||
		doc.Cassettes[1].Name != "suite/chat" || doc.Cassettes[1].File != "suite/chat.yaml" {
		t.Fatalf("cassettes: %+v", doc.Cassettes)
	}
	if a := doc.Cassettes[0]; a.Sessions == nil || len(a.Sessions) != 0 || a.Other == nil {
		t.Errorf("empty cassette: %+v", a)
	}
	c := doc.Cassettes[1]
	if len(c.Sessions) != 1 || len(c.Sessions[0].Invocations) != 2 {
		t.Fatalf("want 1 session with 2 invocations, got %+v", c.Sessions)
	}
	inv1, inv2 := c.Sessions[0].Invocations[0], c.Sessions[0].Invocations[1]
	if inv1.User != first || len(inv1.Steps) != 1 || inv1.Steps[0].FinishReason != "MAX_TOKENS" {
		t.Errorf("invocation 1: %+v", inv1)
	}
	if inv2.User != "Make it two days." || len(inv2.Steps) != 2 || inv2.Steps[0].Status != 429 || inv2.Steps[0].Usage != nil ||
		inv2.Steps[1].Status != 200 || len(inv2.Steps[1].ToolCalls) != 1 || inv2.Steps[1].ToolCalls[0].Name != "plan_trip" {
		t.Errorf("invocation 2 (a retry, then a tool call): %+v", inv2)
	}
	wantOther := []runview.Other{
		{Method: "GET", Path: "/v1beta/models", Status: 200},
		{Method: "GET", Path: "/v1beta/models", Status: 200},
		{Method: "POST", Path: "/v1beta/models/gemini-2.5-flash:countTokens", Status: 200},
	}
	if fmt.Sprint(c.Other) != fmt.Sprint(wantOther) {
		t.Errorf("other = %v, want %v", c.Other, wantOther)
	}

	r = adkproxy(t, nil, "ls", "--cassettes", dir)
	if r.code != 0 {
		t.Fatalf("table: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"CASSETTE alpha (" + filepath.Join(dir, "a.yaml") + "): 0 sessions, 0 invocations, 0 steps\n",
		"CASSETTE suite/chat (" + filepath.Join(dir, "suite", "chat.yaml") + "): 1 session, 2 invocations, 3 steps, 3 other requests\n",
		`"Plan a three-day trip to Kyoto for me, with tem…"`,
		`"Make it two days."`,
		`→ "Day 1: Kinkaku-ji" [finish: MAX_TOKENS]`,
		"[HTTP 429 RESOURCE_EXHAUSTED]",
		`→ plan_trip(city="Kyoto", days=2)`,
		"tokens: 35",
		"\n  other\n",
		"×2",
		"countTokens  200",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Index(r.stdout, "CASSETTE alpha") > strings.Index(r.stdout, "CASSETTE suite/chat") {
		t.Errorf("cassettes not sorted by name:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "Nara") {
		t.Errorf("long user text not cut:\n%s", r.stdout)
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

func lsUserTurn(text string) map[string]any {
	return map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}
}

func lsContents(turns ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"contents": turns})
	return string(b)
}

// lsV1Interaction renders one exchange of a version 1 cassette; bodies are
// written as YAML double-quoted strings (JSON strings are valid ones).
func lsV1Interaction(method, path, reqBody string, status int, respBody string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	s := fmt.Sprintf("  - request:\n      method: %s\n      path: %s\n", method, path)
	if reqBody != "" {
		s += "      body: " + q(reqBody) + "\n"
	}
	return s + fmt.Sprintf("    response:\n      status: %d\n      body: %s\n", status, q(respBody))
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
