package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
)

// weatherAgentClient is an agent reached only through HTTPS_PROXY and
// SSL_CERT_FILE: the genai client at its default host asks about the
// weather in Paris; the model calls get_weather, which the agent runs by
// calling a weather API over HTTPS with net/http (a key in a header and a
// token in the query), and the model then answers.
func weatherAgentClient() int {
	os.Unsetenv("GOOGLE_GEMINI_BASE_URL")
	os.Unsetenv("GOOGLE_VERTEX_BASE_URL")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "get_weather", Description: "Current weather in a city",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}},
	}}}}}
	contents := []*genai.Content{genai.NewContentFromText("What is the weather in Paris", genai.RoleUser)}
	for range 4 {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
		if err != nil {
			fmt.Fprintln(os.Stderr, "model:", err)
			return 2
		}
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			fmt.Println("answer:", resp.Text())
			return 0
		}
		contents = append(contents, resp.Candidates[0].Content)
		for _, c := range calls {
			city, _ := c.Args["city"].(string)
			result, err := getWeather(city)
			if err != nil {
				fmt.Fprintln(os.Stderr, "tool:", err)
				return 2
			}
			fmt.Println("tool:", result)
			contents = append(contents, genai.NewContentFromFunctionResponse(c.Name, result, genai.RoleUser))
		}
	}
	fmt.Fprintln(os.Stderr, "no answer after 4 steps")
	return 2
}

// getWeather is the agent's tool: WEATHER_URL?city=..., with credentials.
func getWeather(city string) (map[string]any, error) {
	u := os.Getenv("WEATHER_URL") + "?" + url.Values{"city": {city}, "token": {os.Getenv("WEATHER_TOKEN")}}.Encode()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("X-Api-Key", os.Getenv("WEATHER_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s: %d %s", u, resp.StatusCode, body)
	}
	var out map[string]any
	return out, json.Unmarshal(body, &out)
}

// weatherAPI is the tool's upstream: the weather in the city asked for.
var weatherAPI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"city":%q,"temp_c":18,"sky":"clear"}`, r.URL.Query().Get("city"))
})

// TestAgentWithToolRecordReplayHermetic: an agent whose model calls and
// tool calls both reach adkproxy only through HTTPS_PROXY records once
// (the genai client's default host and the weather API routed by
// --connect-to to TLS fakes), then replays with both upstreams stopped:
// the same output, exit 0, no connection to either, no credential on
// disk, and `ls` shows the tool call under the step that asked for it.
func TestAgentWithToolRecordReplayHermetic(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	gemini := &fakegemini.Handler{}
	model := testutil.StartCounting(t, gemini, public.Leaf)
	weather := testutil.StartCounting(t, weatherAPI, public.Leaf)
	env := []string{"ADKPROXY_CA_DIR=" + t.TempDir(), "WEATHER_URL=https://weather.example.test/v1/current",
		"WEATHER_KEY=" + testutil.SecretToolHeader, "WEATHER_TOKEN=" + testutil.SecretToolQuery}

	rec := adkproxy(t, append(env, "GOOGLE_API_KEY="+testutil.SecretAPIKey), append([]string{"record", "--cassettes", dir,
		"--connect-to", "generativelanguage.googleapis.com:443=" + model.Addr(),
		"--connect-to", "weather.example.test:443=" + weather.Addr(),
		"--upstream-ca", public.CertPath}, self("weather-agent")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, `tool: map[city:Paris sky:clear temp_c:18]`) || !strings.Contains(rec.stdout, "answer: ") {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	if len(gemini.Requests()) != 2 {
		t.Errorf("the fake Gemini saw %d requests, want 2 (the call and the answer)", len(gemini.Requests()))
	}
	model.Close()
	weather.Close()
	conns := model.Conns() + weather.Conns()
	for _, secret := range []string{testutil.SecretAPIKey, testutil.SecretToolHeader, testutil.SecretToolQuery} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a credential appears %d time(s) in the cassettes", n)
		}
	}

	// Replay with other credentials: they are not part of what matches.
	other := []string{"ADKPROXY_CA_DIR=" + env[0][len("ADKPROXY_CA_DIR="):], env[1], "WEATHER_KEY=another-key", "WEATHER_TOKEN=another-token"}
	rep := adkproxy(t, other, append([]string{"replay", "--cassettes", dir}, self("weather-agent")...)...)
	if rep.code != 0 || rep.stdout != rec.stdout {
		t.Errorf("replay: exit %d\nstdout %q\nrecorded %q\nstderr %s", rep.code, rep.stdout, rec.stdout, rep.stderr)
	}
	if n := model.Conns() + weather.Conns() - conns; n != 0 {
		t.Errorf("replay opened %d connection(s) to the upstreams", n)
	}

	ls := adkproxy(t, nil, "ls", "--cassettes", dir)
	lines := strings.Split(ls.stdout, "\n")
	found := false
	for i, l := range lines {
		if strings.TrimSpace(l) == "tool http GET weather.example.test/v1/current?city=Paris → 200" {
			found = i >= 2 && strings.Contains(lines[i-1], "step 0") && strings.Contains(lines[i-1], "get_weather(city=\"Paris\")") &&
				strings.Contains(lines[i-2], `invocation 1`) && strings.Contains(lines[i-2], "What is the weather in Paris")
		}
	}
	if ls.code != 0 || !found {
		t.Errorf("ls does not show the tool call under invocation 1, step 0 (exit %d):\n%s%s", ls.code, ls.stdout, ls.stderr)
	}
}

// TestToolRequestFailuresExit76: in replay a tool request with one query
// parameter changed fails the run naming the field, and one to a host the
// cassette does not hold gets a 502 naming the host and the cassette; the
// wrapped tool's own success does not hide either.
func TestToolRequestFailuresExit76(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	api := testutil.StartCounting(t, weatherAPI, public.Leaf)
	rec := adkproxy(t, []string{"TOOL_URL=https://weather.example.test/v1/current?city=Paris"}, append([]string{"record", "--cassettes", dir,
		"--connect-to", "weather.example.test:443=" + api.Addr(), "--upstream-ca", public.CertPath}, self("tool-get")...)...)
	if rec.code != 0 || !strings.HasPrefix(rec.stdout, `200 {"city":"Paris"`) {
		t.Fatalf("record: exit %d, stdout %q, stderr %s", rec.code, rec.stdout, rec.stderr)
	}
	api.Close()
	before := api.Conns()

	changed := adkproxy(t, []string{"TOOL_URL=https://weather.example.test/v1/current?city=Lyon"}, append([]string{"replay", "--cassettes", dir}, self("tool-get")...)...)
	if changed.code != exitUnmatched || !strings.Contains(changed.stdout, `query.city: recorded \"Paris\", got \"Lyon\"`) ||
		!strings.Contains(changed.stderr, "query.city") {
		t.Errorf("changed tool request: exit %d, stdout %q, stderr %s; want 76 naming query.city", changed.code, changed.stdout, changed.stderr)
	}
	unknown := adkproxy(t, []string{"TOOL_URL=https://news.example.test/v1/top"}, append([]string{"replay", "--cassettes", dir}, self("tool-get")...)...)
	if unknown.code != exitUnmatched || !strings.HasPrefix(unknown.stdout, "502 ") || !strings.Contains(unknown.stdout, "news.example.test") ||
		!strings.Contains(unknown.stdout, `cassette \"default\"`) {
		t.Errorf("unrecorded host: exit %d, stdout %q, stderr %s; want 76 and a 502 naming the host and cassette", unknown.code, unknown.stdout, unknown.stderr)
	}
	if n := api.Conns() - before; n != 0 {
		t.Errorf("replay opened %d connection(s) to the tool host", n)
	}
}

// httpxTool is a tool written with Python's httpx, which honours
// HTTPS_PROXY and SSL_CERT_FILE by default.
const httpxTool = `import os, httpx
r = httpx.get(os.environ["TOOL_URL"])
print(r.status_code, r.text)
`

// TestHTTPXToolRecordReplay: the same with a Python httpx tool, where
// python3 and httpx are installed. They are optional (the docs name Go's
// net/http as the tested client), so the test skips without them, under
// CI too.
func TestHTTPXToolRecordReplay(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import httpx").Run() != nil {
		t.Skip("python3 with httpx is not installed; it is optional (docs/forward-proxy.md), so this test skips, under CI too")
	}
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	api := testutil.StartCounting(t, weatherAPI, public.Leaf)
	script := filepath.Join(t.TempDir(), "tool.py")
	if err := os.WriteFile(script, []byte(httpxTool), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"TOOL_URL=https://weather.example.test/v1/current?city=Paris"}
	rec := adkproxy(t, env, "record", "--cassettes", dir, "--connect-to", "weather.example.test:443="+api.Addr(),
		"--upstream-ca", public.CertPath, "--", python, script)
	if rec.code != 0 || !strings.HasPrefix(rec.stdout, `200 {"city":"Paris"`) {
		t.Fatalf("record: exit %d, stdout %q, stderr %s", rec.code, rec.stdout, rec.stderr)
	}
	api.Close()
	before := api.Conns()
	rep := adkproxy(t, env, "replay", "--cassettes", dir, "--", python, script)
	if rep.code != 0 || rep.stdout != rec.stdout || api.Conns() != before {
		t.Errorf("replay: exit %d, stdout %q (recorded %q), %d connection(s); stderr %s", rep.code, rep.stdout, rec.stdout, api.Conns()-before, rep.stderr)
	}
}

func init() { proxiedClients["pipeline-agent"] = pipelineAgentClient }

// pipelineAgentClient is an agent "root" reached only through HTTPS_PROXY:
// asked about Paris, its model calls get_weather (which the agent runs by
// calling the weather API over HTTPS), load_artifacts (which fails) and the
// agent "researcher" as a tool (whose own model answers with grounding);
// then root answers.
func pipelineAgentClient() int {
	os.Unsetenv("GOOGLE_GEMINI_BASE_URL")
	os.Unsetenv("GOOGLE_VERTEX_BASE_URL")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	agent := func(name string) *genai.GenerateContentConfig {
		return &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(`You are an agent. Your internal name is "`+name+`".`, genai.RoleUser)}
	}
	contents := []*genai.Content{genai.NewContentFromText("What is the weather in Paris, and what should I see?", genai.RoleUser)}
	for range 3 {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, agent("root"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "model:", err)
			return 2
		}
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			fmt.Println("answer:", resp.Text())
			return 0
		}
		contents = append(contents, resp.Candidates[0].Content)
		var results []*genai.Part
		for _, c := range calls {
			var result map[string]any
			switch c.Name {
			case "get_weather":
				result, err = getWeather(c.Args["city"].(string))
				if err != nil {
					fmt.Fprintln(os.Stderr, "tool:", err)
					return 2
				}
			case "load_artifacts":
				result = map[string]any{"status": "error", "error_message": "no artifact named notes.txt"}
			case "researcher":
				r, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash",
					[]*genai.Content{genai.NewContentFromText(c.Args["request"].(string), genai.RoleUser)}, agent("researcher"))
				if err != nil {
					fmt.Fprintln(os.Stderr, "researcher:", err)
					return 2
				}
				result = map[string]any{"result": r.Text()}
			}
			results = append(results, genai.NewPartFromFunctionResponse(c.Name, result))
		}
		contents = append(contents, genai.NewContentFromParts(results, genai.RoleUser))
	}
	fmt.Fprintln(os.Stderr, "no answer after 3 steps")
	return 2
}

// pipelineModel is the scripted model behind pipelineAgentClient, with
// the usage, thoughts and grounding a recorded run would hold.
var pipelineModel = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.Contains(string(body), `researcher`) && strings.Contains(string(body), `internal name is \"researcher\"`):
		fmt.Fprint(w, `{"candidates": [{"content": {"role": "model", "parts": [{"text": "See the Louvre and the Musée d'Orsay."}]},
		  "finishReason": "STOP", "groundingMetadata": {
		    "groundingChunks": [{"web": {"uri": "https://a.example/louvre", "title": "Louvre"}}, {"web": {"uri": "https://b.example", "title": "B"}},
		                        {"web": {"uri": "https://c.example/orsay", "title": "Orsay"}}],
		    "groundingSupports": [{"segment": {"text": "the Louvre"}, "groundingChunkIndices": [0, 2]}, {"segment": {"text": "Orsay"}, "groundingChunkIndices": [2]}]}}],
		  "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 8, "totalTokenCount": 48}, "modelVersion": "gemini-2.5-flash"}`)
	case strings.Contains(string(body), `functionResponse`):
		fmt.Fprint(w, `{"candidates": [{"content": {"role": "model", "parts": [{"text": "It is 18°C and clear in Paris; see the Louvre and the Musée d'Orsay."}]}, "finishReason": "STOP"}],
		  "usageMetadata": {"promptTokenCount": 200, "candidatesTokenCount": 20, "thoughtsTokenCount": 10, "totalTokenCount": 230}, "modelVersion": "gemini-2.5-flash"}`)
	default:
		fmt.Fprint(w, `{"candidates": [{"content": {"role": "model", "parts": [
		    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
		    {"functionCall": {"name": "load_artifacts", "args": {"artifact_names": ["notes.txt"]}}},
		    {"functionCall": {"name": "researcher", "args": {"request": "What should I see in Paris?"}}}]}, "finishReason": "STOP"}],
		  "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "thoughtsTokenCount": 30, "totalTokenCount": 140}, "modelVersion": "gemini-2.5-flash"}`)
	}
})

// The evaluation pipeline's metrics on a run recorded through the forward
// proxy: tool success, reasoning, grounding, sandbox tools, the tool's HTTP
// time and handoffs to an agent used as a tool, in score's json and csv.
// The researcher's call may be grouped into root's invocation or into a
// session of its own (ADK's AgentTool runs it in a session of its own):
// the counts add up the same either way.
func TestPipelineMetricsOnARecordedRun(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	public := newTestCA(t)
	model := testutil.StartCounting(t, pipelineModel, public.Leaf)
	weather := testutil.StartCounting(t, weatherAPI, public.Leaf)
	env := []string{"ADKPROXY_CA_DIR=" + t.TempDir(), "WEATHER_URL=https://weather.example.test/v1/current", "GOOGLE_API_KEY=" + testutil.SecretAPIKey}
	rec := adkproxy(t, env, append([]string{"record", "--cassettes", dir,
		"--connect-to", "generativelanguage.googleapis.com:443=" + model.Addr(),
		"--connect-to", "weather.example.test:443=" + weather.Addr(),
		"--upstream-ca", public.CertPath}, self("pipeline-agent")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, "answer: It is 18°C") {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte(`{"criteria": {}, "adkproxy": {"criteria": {
	  "tool_success_rate": 0.6, "reasoning_ratio": {}, "grounding_utilization": {},
	  "sandbox_usage": {"tools": ["load_artifacts", "read_file"], "max": 1},
	  "tool_latency_ms": {"max": 60000, "stat": "max"}, "agent_handoffs": {}}}}`), 0o644)

	r := adkproxy(t, nil, "score", "--config", cfg, "--format", "json", dir)
	var doc struct {
		Cases []struct {
			Session string `json:"session_id"`
			Overall []struct {
				Name    string         `json:"metric_name"`
				Score   *float64       `json:"score"`
				Status  int            `json:"eval_status"`
				Details map[string]any `json:"details"`
			} `json:"overall_eval_metric_results"`
		} `json:"eval_case_results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Cases) == 0 || doc.Cases[0].Session != "default/1" {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	// Root's case first; additive counts summed over the cases.
	got := map[string]float64{}
	details := map[string]map[string]any{}
	for i, c := range doc.Cases {
		for _, m := range c.Overall {
			if m.Score == nil {
				continue
			}
			switch m.Name {
			case "grounding_utilization", "sandbox_usage", "agent_handoffs":
				got[m.Name] += *m.Score
			default:
				if i == 0 {
					got[m.Name], details[m.Name] = *m.Score, m.Details
				}
			}
			if i == 0 || m.Name == "grounding_utilization" && *m.Score > 0 {
				details[m.Name] = m.Details
			}
		}
	}
	// Root thought 30 + 10 tokens and wrote 10 + 20; the researcher wrote 8
	// more when it is grouped with root.
	reasoning := 40.0 / (40 + 30)
	if len(doc.Cases) == 1 {
		reasoning = 40.0 / (40 + 38)
	}
	for name, want := range map[string]float64{
		"tool_success_rate":     2.0 / 3, // load_artifacts answered "status": "error"
		"reasoning_ratio":       reasoning,
		"grounding_utilization": 2, // chunks 0 and 2 of 3
		"sandbox_usage":         1,
		"agent_handoffs":        1, // researcher, an agent used as a tool
	} {
		if g, ok := got[name]; !ok || fmt.Sprint(g) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v (details %v)", name, g, want, details[name])
		}
	}
	if d := details["tool_latency_ms"]; got["tool_latency_ms"] <= 0 || fmt.Sprint(d["n"]) != "1" ||
		fmt.Sprint(d["requests_per_host"]) != "map[weather.example.test:1]" {
		t.Errorf("tool_latency_ms = %v, details %v", got["tool_latency_ms"], d)
	}
	if d := details["grounding_utilization"]; fmt.Sprint(d["chunks"]) != "3" {
		t.Errorf("grounding details %v", d)
	}
	if d := details["agent_handoffs"]; fmt.Sprint(d["agent_tools"]) != "1" || fmt.Sprint(d["to"]) != "[researcher]" {
		t.Errorf("agent_handoffs details %v", d)
	}

	// The csv's run columns, with the tools as a list.
	csvOut := adkproxy(t, nil, "score", "--config", cfg, "--format", "csv", dir).stdout
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil || len(rows) != len(doc.Cases)+1 {
		t.Fatalf("csv: %v\n%s", err, csvOut)
	}
	cell := map[string]string{}
	for i, c := range rows[0] {
		cell[c] = rows[1][i]
	}
	for col, want := range map[string]string{
		"metric.unique_tools": "get_weather;load_artifacts;researcher", "metric.tool_success_rate": fmt.Sprint(2.0 / 3),
		"metric.sandbox_usage": "1", "metric.agent_handoffs": "1", "metric.tool_calls": "3",
		"metric.tool_errors": "1", "tool_success_rate.status": "PASSED", "reasoning_ratio.status": "INFORMATIONAL",
	} {
		if cell[col] != want {
			t.Errorf("csv %s = %q, want %q", col, cell[col], want)
		}
	}
	grounded := 0
	for _, row := range rows[1:] {
		n, _ := strconv.Atoi(row[slices.Index(rows[0], "metric.grounding_utilization")])
		grounded += n
	}
	if cell["metric.tool_latency_ms"] == "" || grounded != 2 {
		t.Errorf("csv: %q", rows)
	}

	// The default sandbox list counts load_artifacts too; without the tool
	// traffic tool_latency_ms says why it has no score.
	os.WriteFile(cfg, []byte(`{"adkproxy": {"criteria": {"sandbox_usage": {}, "tool_latency_ms": {"max": 10}}}}`), 0o644)
	noTools := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(weatherCassette, "default.yaml"))
	os.WriteFile(filepath.Join(noTools, "default.yaml"), data, 0o644)
	r = adkproxy(t, nil, "score", "--config", cfg, noTools)
	if !strings.Contains(r.stdout, "no tool HTTP traffic recorded") {
		t.Errorf("tool_latency_ms without tool traffic:\n%s", r.stdout)
	}
	r = adkproxy(t, nil, "score", "--config", cfg, "--format", "csv", dir)
	if !strings.Contains(r.stdout, "sandbox_usage") || !strings.Contains(strings.Split(r.stdout, "\n")[1], ",1,INFORMATIONAL,") {
		t.Errorf("default sandbox list:\n%s", r.stdout)
	}
}

// ADK's tool confirmation as ls, score, diff and the OTLP export show it,
// from ADK-JS's real traffic: ADK keeps adk_request_confirmation and the
// user's answer out of every model request, so drive reports its answer to
// the recording proxy (--proxy-url), which files it on the step carrying
// the tool's result: approvals show too, in both of ADK's shapes. Without
// a report a refusal still shows as ADK's refusal result of the call, an
// approval as the tool's own result. Recorded once, replayed offline.
func TestToolConfirmationInLsScoreDiffExport(t *testing.T) {
	t.Parallel()
	agents := filepath.Join(t.TempDir(), "agents")
	writeTestFile(t, agents, "booker/agent.mjs", bookerAgent)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	out := testutil.OutDir(t)
	evalset := writeTestFile(t, out, "booking.evalset.json", `{"eval_set_id": "booking", "eval_cases": [{"eval_id": "paris",
	  "conversation": [{"user_content": {"parts": [{"text": "Book a room in Paris"}]}}]}]}`)
	// drive reports each answer to the recording proxy (--proxy-url: the
	// address --addr-file names), which ADK never sends to the model.
	record := func(name, decision, shape string, report bool, extra ...string) string {
		dir := filepath.Join(out, name)
		addrFile := filepath.Join(t.TempDir(), "addr")
		srv := startWrappedServer(t, agents, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey}, "record", "--cassettes", dir, "--upstream", up.URL, "--addr-file", addrFile)
		args := []string{"drive", "--server", srv.url, "--app", "booker", "--evalset", evalset,
			"--confirm", decision, "--confirm-shape", shape, "--out", filepath.Join(out, name+".json")}
		args = append(args, extra...)
		if report {
			args = append(args, "--proxy-url", "http://"+strings.TrimSpace(readFile(t, addrFile)))
		}
		res := adkproxy(t, nil, args...)
		srv.stop(t)
		if res.code != 0 {
			t.Fatalf("%s: drive exited %d: %s\nserver:\n%s", name, res.code, res.stderr, srv.stderr.String())
		}
		return dir
	}
	approved := record("approved", "approve", "object", true)
	approvedJS := record("approved-json-string", "approve", "json-string", true)
	refused := record("refused", "refuse", "json-string", true)
	unreported := record("unreported", "approve", "object", false)
	// drive --confirm-payload: ADK gets the payload with the answer, the
	// cassette keeps it (numbers exactly as written).
	withDrivePayload := record("approved-payload", "approve", "json-string", true, "--confirm-payload", `{"rooms": 2, "rate": 120.5}`)
	if c := readFile(t, filepath.Join(withDrivePayload, "default.yaml")); !strings.Contains(c, "payload: {rate: 120.5, rooms: 2}\n") {
		t.Errorf("the cassette lacks drive's payload:\n%s", c)
	}
	if sent := readFile(t, filepath.Join(out, "approved-payload.json")); !strings.Contains(sent, `\"payload\":{\"rate\":120.5,\"rooms\":2}`) {
		t.Errorf("the session lacks the answer's payload:\n%s", sent)
	}
	if d := adkproxy(t, nil, "diff", approvedJS, withDrivePayload); !strings.Contains(d.stdout, `book_room confirmation.payload: added {"rate":120.5,"rooms":2}`) {
		t.Errorf("diff of an answer without and with a payload: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}

	// The cassettes hold the answers, on the step that carried the tool's
	// result (or ADK's refusal), in the shape drive sent.
	for _, tc := range []struct{ dir, want string }{
		{approved, "confirmations:\n              - tool: book_room\n                args: {city: Paris}\n                confirmed: true\n                hint: "},
		{approvedJS, "confirmed: true\n"},
		{approvedJS, "shape: json-string\n"},
		{refused, "confirmed: false\n"},
	} {
		if c := readFile(t, filepath.Join(tc.dir, "default.yaml")); !strings.Contains(c, tc.want) {
			t.Errorf("%s lacks %q:\n%s", filepath.Base(tc.dir), tc.want, c)
		}
	}
	if c := readFile(t, filepath.Join(unreported, "default.yaml")); strings.Contains(c, "confirmations:") {
		t.Errorf("a run that reported nothing has confirmations:\n%s", c)
	}

	// ls: the answer is on the invocation that made the call, an approval
	// as well as a refusal.
	lsApproved, lsRefused := adkproxy(t, nil, "ls", approved), adkproxy(t, nil, "ls", refused)
	if !strings.Contains(lsRefused.stdout, "1 session, 1 invocation") ||
		!strings.Contains(lsRefused.stdout, `tools: confirm book_room(city="Paris")? → refused`) ||
		!strings.Contains(lsRefused.stdout, "← book_room (refused at confirmation)") {
		t.Errorf("ls of the refused run:\n%s%s", lsRefused.stdout, lsRefused.stderr)
	}
	if !strings.Contains(lsApproved.stdout, "1 session, 1 invocation") ||
		!strings.Contains(lsApproved.stdout, `tools: confirm book_room(city="Paris")? → approved`) || strings.Contains(lsApproved.stdout, "refused") {
		t.Errorf("ls of the approved run:\n%s%s", lsApproved.stdout, lsApproved.stderr)
	}
	if ls := adkproxy(t, nil, "ls", unreported); !strings.Contains(ls.stdout, `tools: book_room(city="Paris")`) || strings.Contains(ls.stdout, "confirm ") {
		t.Errorf("ls of the run that reported nothing:\n%s%s", ls.stdout, ls.stderr)
	}
	if js := adkproxy(t, nil, "ls", approvedJS, "--json"); !strings.Contains(js.stdout, `"confirmations": [
                {
                  "step": 0,
                  "call": 0,
                  "name": "book_room",
                  "args": {
                    "city": "Paris"
                  },
                  "decision": "approved",
                  "payload": null,
                  "shape": "json-string",`) {
		t.Errorf("ls --json of the approved run (json-string):\n%s", js.stdout)
	}
	if h := adkproxy(t, nil, "ls", refused, "--format", "html"); !strings.Contains(h.stdout, "book_room (refused at confirmation) →") {
		t.Errorf("ls --format html of the refused run lacks the refusal:\n%s", h.stdout)
	}
	if h := adkproxy(t, nil, "ls", approved, "--format", "html"); !strings.Contains(h.stdout, "confirm book_room(city=&#34;Paris&#34;)? → approved") {
		t.Errorf("ls --format html of the approved run lacks the approval:\n%s", h.stdout)
	}
	js := adkproxy(t, nil, "ls", refused, "--json")
	if !strings.Contains(js.stdout, `"refused": [
                {
                  "step": 0,
                  "call": 0,
                  "name": "book_room",`) {
		t.Errorf("ls --json of the refused run:\n%s", js.stdout)
	}

	// diff: a changed answer is a change of its own, which --fail-on tools fails.
	d := adkproxy(t, nil, "diff", approved, refused, "--fail-on", "tools")
	if d.code != 1 || !strings.Contains(d.stdout, "tool confirmations:\n        book_room confirmation: approved → refused") ||
		!strings.Contains(d.stdout, "1 confirmation changed") {
		t.Errorf("diff approved → refused: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}

	// OTLP: the refused call's execute_tool span, under the one invocation span, says so.
	otlp := adkproxy(t, nil, "export", refused, "--format", "otlp-json")
	if otlp.code != 0 || strings.Count(otlp.stdout, `"name": "invocation"`) != 1 ||
		!strings.Contains(otlp.stdout, `"key": "adkproxy.tool.confirmation"`) {
		t.Errorf("otlp of the refused run: exit %d\n%s%s", otlp.code, otlp.stdout, otlp.stderr)
	}
	if o := adkproxy(t, nil, "export", approved, "--format", "otlp-json"); !strings.Contains(strings.Join(strings.Fields(o.stdout), " "),
		`"key": "adkproxy.tool.confirmation", "value": { "stringValue": "approved" }`) {
		t.Errorf("otlp of the approved run does not mark the approval:\n%s", o.stdout)
	}
	if o := adkproxy(t, nil, "export", unreported, "--format", "otlp-json"); strings.Contains(o.stdout, "adkproxy.tool.confirmation") {
		t.Errorf("otlp of the run that reported nothing marks a confirmation:\n%s", o.stdout)
	}
	// Both of ADK's shapes approve alike: the same run.
	if d := adkproxy(t, nil, "diff", approved, approvedJS, "--fail-on", "tools"); d.code != 0 {
		t.Errorf("diff of the two approval shapes: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}

	// An answer with a payload (another client's, through the control
	// API): ls shows it, diff compares it, the OTLP export carries it.
	withPayload := func(name, payload string) string {
		c := readFile(t, filepath.Join(approved, "default.yaml"))
		edited := strings.Replace(c, "confirmed: true\n", "confirmed: true\n                payload: "+payload+"\n", 1)
		if edited == c {
			t.Fatalf("no answer to give a payload in:\n%s", c)
		}
		dir := filepath.Join(out, name)
		writeTestFile(t, dir, "default.yaml", edited)
		return dir
	}
	two, three := withPayload("payload-2", "{rooms: 2}"), withPayload("payload-3", "{rooms: 3}")
	if ls := adkproxy(t, nil, "ls", two); !strings.Contains(ls.stdout, `confirm book_room(city="Paris")? → approved (payload {"room`) {
		t.Errorf("ls of an answer with a payload:\n%s%s", ls.stdout, ls.stderr)
	}
	if js := adkproxy(t, nil, "ls", two, "--json"); !strings.Contains(js.stdout, `"decision": "approved",
                  "payload": {
                    "rooms": 2
                  },`) {
		t.Errorf("ls --json of an answer with a payload:\n%s", js.stdout)
	}
	if d := adkproxy(t, nil, "diff", two, three); !strings.Contains(d.stdout, "book_room confirmation.payload.rooms: 2 → 3") {
		t.Errorf("diff of two payloads: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
	if o := adkproxy(t, nil, "export", three, "--format", "otlp-json"); !strings.Contains(strings.Join(strings.Fields(o.stdout), " "),
		`"key": "adkproxy.tool.confirmation.payload", "value": { "stringValue": "{\"rooms\": 3}" }`) {
		t.Errorf("otlp of an answer with a payload:\n%s", o.stdout)
	}

	// score: an eval set saved by ADK holds the adk_request_confirmation
	// call after the call it asks about (its arguments carry that call's
	// id, new every run); the trajectory leaves it out on both sides.
	adkSet := writeTestFile(t, out, "adk.evalset.json", `{"eval_set_id": "booking", "eval_cases": [{"eval_id": "paris",
	  "conversation": [{"user_content": {"parts": [{"text": "Book a room in Paris"}]},
	    "intermediate_data": {"invocation_events": [
	      {"author": "booker", "content": {"parts": [{"function_call": {"id": "adk-1", "name": "book_room", "args": {"city": "Paris"}}}]}},
	      {"author": "booker", "content": {"parts": [{"function_call": {"id": "adk-2", "name": "adk_request_confirmation",
	        "args": {"originalFunctionCall": {"id": "adk-1", "name": "book_room", "args": {"city": "Paris"}},
	                 "toolConfirmation": {"hint": "Please approve or reject the tool call book_room()", "confirmed": false}}}}]}}]}}]}]}`)
	cfg := writeTestFile(t, out, "tc.json", `{"criteria": {"tool_trajectory_avg_score": 1.0}}`)
	for _, dir := range []string{approved, approvedJS, refused} {
		s := adkproxy(t, nil, "score", "--cassettes", dir, "--expected", adkSet, "--config", cfg)
		if s.code != 0 || !strings.Contains(s.stdout, "CASE paris  PASSED  (session default/1, 1 invocation)") {
			t.Errorf("score %s: exit %d\n%s%s", filepath.Base(dir), s.code, s.stdout, s.stderr)
		}
	}

	// Replayed offline with the same answer: the same run. With the other
	// answer the agent sends what was never recorded, and replay fails.
	replay := func(dir, decision, shape string) string {
		addrFile := filepath.Join(t.TempDir(), "addr")
		srv := startWrappedServer(t, agents, nil, "replay", "--cassettes", dir, "--addr-file", addrFile)
		res := adkproxy(t, nil, "drive", "--server", srv.url, "--app", "booker", "--evalset", evalset, "--confirm", decision, "--confirm-shape", shape,
			"--proxy-url", "http://"+strings.TrimSpace(readFile(t, addrFile)))
		srv.stop(t)
		return res.stderr + srv.stderr.String()
	}
	if log := replay(refused, "refuse", "object"); !strings.Contains(log, "replayed 2 request(s): 2 matched, 0 mismatched, 0 unmatched") {
		t.Errorf("replay of the refused run with a refusal (the other shape):\n%s", log)
	}
	if log := replay(approved, "refuse", "object"); !strings.Contains(log, "step 1, agent booker: request differs from the recording") ||
		!strings.Contains(log, `functionResponse.response.error: added "This tool call is rejected."`) {
		t.Errorf("replay of the approved run with a refusal:\n%s", log)
	}
	if log := replay(approved, "approve", "json-string"); !strings.Contains(log, "replayed 2 request(s): 2 matched, 0 mismatched, 0 unmatched") {
		t.Errorf("replay of the approved run with an approval (the other shape):\n%s", log)
	}
	if again := adkproxy(t, nil, "ls", approved); again.stdout != lsApproved.stdout {
		t.Errorf("ls after replay differs:\n%s\n---\n%s", again.stdout, lsApproved.stdout)
	}
	if again := adkproxy(t, nil, "ls", refused); again.stdout != lsRefused.stdout {
		t.Errorf("ls after replay differs:\n%s\n---\n%s", again.stdout, lsRefused.stdout)
	}
}

// The wrapped command of TestLiveVoiceSessionIsGraded (dispatched by
// TestMain with the other clients).
func init() { proxiedClients["live-voice"] = liveVoiceClient }

// liveVoiceClient speaks to a Live model through adkproxy's base URL:
// "What is the weather in Paris?" as two audio chunks, the tool call
// answered, then "Thanks"; the model answers in audio with transcriptions,
// which it prints.
func liveVoiceClient() int {
	base := "ws" + strings.TrimPrefix(os.Getenv("GOOGLE_GEMINI_BASE_URL"), "http")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: "v1beta"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	session, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", &genai.LiveConnectConfig{
		ResponseModalities:       []genai.Modality{genai.ModalityAudio},
		InputAudioTranscription:  &genai.AudioTranscriptionConfig{},
		OutputAudioTranscription: &genai.AudioTranscriptionConfig{},
		SystemInstruction:        genai.NewContentFromText(`You are an agent. Your internal name is "voice_agent".`, genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_weather", Description: "Current weather for a city",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}}}}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 2
	}
	defer session.Close()
	// The fake model "hears" the audio's bytes as words.
	speak := func(chunks ...string) error {
		for _, c := range chunks {
			if err := session.SendRealtimeInput(genai.LiveRealtimeInput{Audio: &genai.Blob{MIMEType: "audio/pcm;rate=16000", Data: []byte(c)}}); err != nil {
				return err
			}
		}
		return session.SendRealtimeInput(genai.LiveRealtimeInput{AudioStreamEnd: true})
	}
	for _, turn := range [][]string{{"What is the weather ", "in Paris?"}, {"Thanks"}} {
		if err := speak(turn...); err != nil {
			fmt.Fprintln(os.Stderr, "send:", err)
			return 2
		}
		var heard, said strings.Builder
		for done := false; !done; {
			msg, err := session.Receive()
			if err != nil {
				fmt.Fprintln(os.Stderr, "receive:", err)
				return 2
			}
			switch {
			case msg.ToolCall != nil:
				var responses []*genai.FunctionResponse
				for _, c := range msg.ToolCall.FunctionCalls {
					responses = append(responses, &genai.FunctionResponse{ID: c.ID, Name: c.Name,
						Response: map[string]any{"city": c.Args["city"], "temp_c": 18, "sky": "sunny"}})
				}
				if err := session.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: responses}); err != nil {
					return 2
				}
			case msg.ServerContent != nil:
				if t := msg.ServerContent.InputTranscription; t != nil {
					heard.WriteString(t.Text)
				}
				if t := msg.ServerContent.OutputTranscription; t != nil {
					said.WriteString(t.Text)
				}
			case msg.UsageMetadata != nil:
				done = true
			}
		}
		fmt.Printf("heard %q, said %q\n", heard.String(), said.String())
	}
	return 0
}

// TestLiveVoiceSessionIsGraded: a Live session spoken in audio only is
// recorded through adkproxy; its transcriptions make the invocations'
// user texts and final responses, so ls shows the transcript, score pairs
// it with an eval case by its first user turn and grades its answer, and
// the CSV carries the spoken answer.
func TestLiveVoiceSessionIsGraded(t *testing.T) {
	t.Parallel()
	dir := testutil.OutDir(t)
	up := httptest.NewServer(&fakegemini.Handler{})
	defer up.Close()
	rec := adkproxy(t, []string{"GOOGLE_API_KEY=" + testutil.SecretAPIKey},
		append([]string{"record", "--cassettes", dir, "--upstream", up.URL}, self("live-voice")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, `heard "What is the weather in Paris?"`) {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	var heard, answer string
	fmt.Sscanf(strings.Split(rec.stdout, "\n")[0], "heard %q, said %q", &heard, &answer)
	if answer == "" {
		t.Fatalf("no spoken answer: %s", rec.stdout)
	}

	ls := adkproxy(t, nil, "ls", dir)
	t.Logf("ls:\n%s", ls.stdout)
	if ls.code != 0 || !strings.Contains(ls.stdout, `"What is the weather in Paris?"`) || !strings.Contains(ls.stdout, `"Thanks"`) ||
		!strings.Contains(ls.stdout, answer[:20]) || !strings.Contains(ls.stdout, "get_weather") {
		t.Errorf("ls does not show the transcript:\n%s%s", ls.stdout, ls.stderr)
	}

	set := filepath.Join(t.TempDir(), "voice.evalset.json")
	os.WriteFile(set, []byte(`{"eval_set_id": "voice", "eval_cases": [{"eval_id": "paris_by_voice", "conversation": [
	  {"user_content": {"parts": [{"text": "What is the weather in Paris?"}]}, "final_response": {"parts": [{"text": `+fmt.Sprintf("%q", answer)+`}]},
	   "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}},
	  {"user_content": {"parts": [{"text": "Thanks"}]}}]}]}`), 0o644)
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte(`{"criteria": {"tool_trajectory_avg_score": 1.0}, "adkproxy": {"criteria": {"total_tokens": {}}}}`), 0o644)
	r := adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "csv", dir)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("score: exit %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	cell := map[string]string{}
	for i, c := range rows[0] {
		cell[c] = rows[1][i]
	}
	if cell["eval_id"] != "paris_by_voice" || cell["tool_trajectory_avg_score"] != "1" || cell["metric.turn_count"] != "2" ||
		cell["final_response"] == "" || cell["metric.unique_tools"] != "get_weather" {
		t.Errorf("the voice session is not graded: %v\nstderr %s", cell, r.stderr)
	}
	os.WriteFile(cfg, []byte(`{"criteria": {"response_match_score": {"threshold": 0.99}}}`), 0o644)
	// Invocation 1's spoken answer is what the eval set expects; invocation
	// 2 expects nothing and gets ROUGE 0, so the mean is 0.5.
	r = adkproxy(t, nil, "score", "--expected", set, "--config", cfg, "--format", "csv", dir)
	if rows, _ := csv.NewReader(strings.NewReader(r.stdout)).ReadAll(); len(rows) != 2 || rows[1][5] != "0.5" {
		t.Errorf("response_match_score of the spoken answers:\n%s\n%s", r.stdout, r.stderr)
	}
}
