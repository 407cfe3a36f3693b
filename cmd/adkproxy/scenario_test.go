// Recorded runs for the diff tests: a scripted model (an httptest server
// in the test process) and a wrapped agent (this test binary in
// "scenario" client mode, using the real genai client) recorded through
// the real adkproxy. What the model answers and what the tools return come
// from a scenario, so two scenarios differing in one thing give two runs
// differing in exactly that.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"google.golang.org/genai"
)

// scenario is one run: its agents, its sessions of turns, what each tool
// returns.
type scenario struct {
	Agents      map[string]agentDef       `json:"agents"`
	Sessions    [][]turn                  `json:"sessions"`
	ToolResults map[string]map[string]any `json:"tool_results"`
	// HTTPTools are tools that call the weather API (weatherAPI, at
	// https://weather.example.test through the forward proxy): GET the
	// path with the call's arguments as the query, and return the answer.
	HTTPTools map[string]string `json:"http_tools"`
}

// toolHost is the weather API's name; --connect-to routes it to a fake.
const toolHost = "weather.example.test"

type agentDef struct {
	Model       string   `json:"model"`
	Instruction string   `json:"instruction"`
	Tools       []string `json:"tools"`
	Temperature float32  `json:"temperature"`
}

// turn is one user text; its agents run one after the other, or all at
// once when Parallel; Replies are each agent's model answers, in order.
type turn struct {
	User     string             `json:"user"`
	Agents   []string           `json:"agents"`
	Parallel bool               `json:"parallel"`
	Replies  map[string][]reply `json:"replies"`
}

type reply struct {
	Calls []toolCall `json:"calls,omitempty"`
	Text  string     `json:"text,omitempty"`
}

type toolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

func (sc *scenario) clone() *scenario {
	b, _ := json.Marshal(sc)
	var out scenario
	json.Unmarshal(b, &out)
	return &out
}

// recordScenario records sc into a new folder and returns it.
func recordScenario(t *testing.T, name string, sc *scenario) string {
	t.Helper()
	up := httptest.NewServer(scriptedModel(t, sc))
	defer up.Close()
	dir := testutil.OutDir(t) + "/" + name
	doc, _ := json.Marshal(sc)
	args := []string{"record", "--cassettes", dir, "--upstream", up.URL, "--no-forward-proxy"}
	if len(sc.HTTPTools) > 0 { // the tools reach the weather API through the forward proxy
		public := newTestCA(t)
		api := testutil.StartCounting(t, weatherAPI, public.Leaf)
		defer api.Close()
		args = []string{"record", "--cassettes", dir, "--upstream", up.URL,
			"--connect-to", toolHost + ":443=" + api.Addr(), "--upstream-ca", public.CertPath}
	}
	r := adkproxy(t, []string{"SCENARIO=" + string(doc), "GOOGLE_API_KEY=" + testutil.SecretAPIKey}, append(args, self("scenario")...)...)
	if r.code != 0 {
		t.Fatalf("recording %s: exit %d\nstdout %s\nstderr %s", name, r.code, r.stdout, r.stderr)
	}
	return dir
}

var internalNameLine = regexp.MustCompile(`Your internal name is "(\w+)"`)

// scriptedModel answers each agent's n-th call about a user text with the
// scenario's n-th reply, with usage growing with the history.
func scriptedModel(t *testing.T, sc *scenario) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Contents          []*genai.Content `json:"contents"`
			SystemInstruction *genai.Content   `json:"systemInstruction"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || req.SystemInstruction == nil {
			http.Error(w, "scripted model: want a JSON body with a system instruction", 400)
			return
		}
		m := internalNameLine.FindStringSubmatch(req.SystemInstruction.Parts[0].Text)
		user, step := "", 0
		for _, c := range req.Contents {
			switch {
			case c.Role == "user" && c.Parts[0].Text != "":
				user, step = c.Parts[0].Text, 0
			case c.Role == "model":
				step++
			}
		}
		var rep *reply
		for _, s := range sc.Sessions {
			for _, tu := range s {
				if m != nil && tu.User == user && step < len(tu.Replies[m[1]]) {
					rep = &tu.Replies[m[1]][step]
				}
			}
		}
		if rep == nil {
			t.Errorf("scripted model: no reply for agent %v, user %q, step %d", m, user, step)
			http.Error(w, "no reply scripted", 500)
			return
		}
		var parts []map[string]any
		if rep.Text != "" {
			parts = append(parts, map[string]any{"text": rep.Text})
		}
		for _, c := range rep.Calls {
			parts = append(parts, map[string]any{"functionCall": c})
		}
		prompt := 10 * len(req.Contents)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}},
			"usageMetadata": map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": 5, "totalTokenCount": prompt + 5},
			"modelVersion":  strings.TrimPrefix(strings.Split(r.URL.Path, ":")[0], "/v1beta/models/"),
		})
	})
}

// scenarioClient is the wrapped agent: it plays SCENARIO's sessions with
// the genai client, running each turn's agents and their tools.
func scenarioClient() int {
	var sc scenario
	if err := json.Unmarshal([]byte(os.Getenv("SCENARIO")), &sc); err != nil {
		fmt.Fprintln(os.Stderr, "scenario:", err)
		return 2
	}
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "scenario:", err)
		return 2
	}
	for _, session := range sc.Sessions {
		var history []*genai.Content
		for _, tu := range session {
			history = append(history, genai.NewContentFromText(tu.User, genai.RoleUser))
			answers := make([]string, len(tu.Agents))
			errs := make([]error, len(tu.Agents))
			var wg sync.WaitGroup
			for i, name := range tu.Agents {
				run := func() { answers[i], errs[i] = runAgent(ctx, client, &sc, name, history) }
				if tu.Parallel {
					wg.Go(run)
				} else {
					run()
				}
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					fmt.Fprintln(os.Stderr, "scenario:", err)
					return 2
				}
			}
			history = append(history, genai.NewContentFromText(answers[len(answers)-1], genai.RoleModel))
		}
	}
	return 0
}

// runAgent runs one agent on the history until it answers with text.
func runAgent(ctx context.Context, client *genai.Client, sc *scenario, name string, history []*genai.Content) (string, error) {
	def := sc.Agents[name]
	var decls []*genai.FunctionDeclaration
	for _, tool := range def.Tools {
		decls = append(decls, &genai.FunctionDeclaration{Name: tool, Description: "Tool " + tool + ".",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}})
	}
	temp := def.Temperature
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(def.Instruction+"\nYour internal name is \""+name+"\".", genai.RoleUser),
		Temperature:       &temp,
	}
	if len(decls) > 0 {
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	contents := append([]*genai.Content(nil), history...)
	for step := 0; step < 10; step++ {
		resp, err := client.Models.GenerateContent(ctx, def.Model, contents, config)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		contents = append(contents, resp.Candidates[0].Content)
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			return resp.Text(), nil
		}
		var results []*genai.Part
		for _, c := range calls {
			result := sc.ToolResults[c.Name]
			if path, ok := sc.HTTPTools[c.Name]; ok {
				if result, err = callAPI(path, c.Args); err != nil {
					return "", fmt.Errorf("%s: tool %s: %w", name, c.Name, err)
				}
			}
			results = append(results, genai.NewPartFromFunctionResponse(c.Name, result))
		}
		contents = append(contents, genai.NewContentFromParts(results, genai.RoleUser))
	}
	return "", fmt.Errorf("%s: no answer after 10 model calls", name)
}

// callAPI is an HTTP tool: GET https://toolHost/path?args through the
// proxy the environment names.
func callAPI(path string, args map[string]any) (map[string]any, error) {
	query := url.Values{}
	for k, v := range args {
		query.Set(k, fmt.Sprint(v))
	}
	resp, err := http.Get("https://" + toolHost + path + "?" + query.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	return out, json.NewDecoder(resp.Body).Decode(&out)
}
