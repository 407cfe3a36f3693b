package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

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
