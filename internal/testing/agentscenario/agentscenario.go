// Package agentscenario plays a scripted agent run with the real genai
// client, for tests that need recorded runs differing in exactly one
// thing: a scenario's agents, its sessions of turns, what the model
// answers each agent (ScriptedModel serves that) and what each tool
// returns. The cmd suite plays it as the command it wraps; package tests
// play it in-process through adkproxytest.
package agentscenario

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"
)

// Scenario is one run: its agents, its sessions of turns, what each tool
// returns.
type Scenario struct {
	Agents      map[string]Agent          `json:"agents"`
	Sessions    [][]Turn                  `json:"sessions"`
	ToolResults map[string]map[string]any `json:"tool_results"`
	// HTTPTools are tools that call the weather API (at https://ToolHost
	// through the proxy the environment names): GET the path with the
	// call's arguments as the query, and return the answer.
	HTTPTools map[string]string `json:"http_tools"`
}

// ToolHost is the weather API's name; a test routes it to a fake.
const ToolHost = "weather.example.test"

// Agent is one agent's model, instruction, tools and temperature.
type Agent struct {
	Model       string   `json:"model"`
	Instruction string   `json:"instruction"`
	Tools       []string `json:"tools"`
	Temperature float32  `json:"temperature"`
}

// Turn is one user text; its agents run one after the other, or all at
// once when Parallel; Replies are each agent's model answers, in order.
type Turn struct {
	User     string             `json:"user"`
	Agents   []string           `json:"agents"`
	Parallel bool               `json:"parallel"`
	Replies  map[string][]Reply `json:"replies"`
}

// Reply is one model answer: tool calls, text, or both.
type Reply struct {
	Calls []ToolCall `json:"calls,omitempty"`
	Text  string     `json:"text,omitempty"`
}

// ToolCall is a function call the model answers with.
type ToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Clone is a deep copy, to change one thing of a scenario.
func (sc *Scenario) Clone() *Scenario {
	b, _ := json.Marshal(sc)
	var out Scenario
	json.Unmarshal(b, &out)
	return &out
}

var internalNameLine = regexp.MustCompile(`Your internal name is "(\w+)"`)

// ScriptedModel answers each agent's n-th call about a user text with the
// scenario's n-th reply, with usage growing with the history; a call it
// has no reply for fails t.
func ScriptedModel(t testing.TB, sc *Scenario) http.Handler {
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
		var rep *Reply
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

// Play plays the scenario's sessions with client, running each turn's
// agents and their tools.
func Play(ctx context.Context, client *genai.Client, sc *Scenario) error {
	for _, session := range sc.Sessions {
		var history []*genai.Content
		for _, tu := range session {
			history = append(history, genai.NewContentFromText(tu.User, genai.RoleUser))
			answers := make([]string, len(tu.Agents))
			errs := make([]error, len(tu.Agents))
			var wg sync.WaitGroup
			for i, name := range tu.Agents {
				run := func() { answers[i], errs[i] = runAgent(ctx, client, sc, name, history) }
				if tu.Parallel {
					wg.Go(run)
				} else {
					run()
				}
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
			history = append(history, genai.NewContentFromText(answers[len(answers)-1], genai.RoleModel))
		}
	}
	return nil
}

// runAgent runs one agent on the history until it answers with text.
func runAgent(ctx context.Context, client *genai.Client, sc *Scenario, name string, history []*genai.Content) (string, error) {
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

// callAPI is an HTTP tool: GET https://ToolHost/path?args through the
// proxy the environment names.
func callAPI(path string, args map[string]any) (map[string]any, error) {
	query := url.Values{}
	for k, v := range args {
		query.Set(k, fmt.Sprint(v))
	}
	resp, err := http.Get("https://" + ToolHost + path + "?" + query.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	return out, json.NewDecoder(resp.Body).Decode(&out)
}
