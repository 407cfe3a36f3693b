// Command weather is a small function-calling agent used by `make demo`:
// it answers two user turns about the weather, calling a local get_weather
// tool whenever the model asks for it. It talks to whatever
// GOOGLE_GEMINI_BASE_URL points at (adkproxy sets it), using the official
// Go client exactly as a real agent would. WEATHER_RETRIES=N lets the
// client retry a failed call N times (a 429 or 5xx answer, a broken
// connection), as docs/resilience.md shows with injected faults.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

const model = "gemini-2.5-flash"

var weatherTool = &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{
	Name:        "get_weather",
	Description: "Returns the current weather for a city.",
	Parameters: &genai.Schema{Type: genai.TypeObject, Required: []string{"city"},
		Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString, Description: "City name"}}},
}}}

// getWeather is the agent's tool: a fixed table, so runs are repeatable.
func getWeather(city string) map[string]any {
	temps := map[string]int{"paris": 18, "tokyo": 24, "london": 12}
	t, ok := temps[strings.ToLower(city)]
	if !ok {
		return map[string]any{"city": city, "error": "unknown city"}
	}
	return map[string]any{"city": city, "temp_c": t, "sky": "clear"}
}

func main() {
	if err := run(context.Background(), []string{"What is the weather in Paris?", "And what about Tokyo?"}); err != nil {
		fmt.Fprintln(os.Stderr, "weather agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, turns []string) error {
	cfg := &genai.ClientConfig{Backend: genai.BackendGeminiAPI}
	if n, err := strconv.Atoi(os.Getenv("WEATHER_RETRIES")); err == nil && n > 0 {
		attempts, delay := int32(n+1), 0.1 // seconds before the first retry
		cfg.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts, InitialDelay: &delay}
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return err
	}
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("You are a weather assistant. Use get_weather for every city.", genai.RoleUser),
		Tools:             []*genai.Tool{weatherTool},
	}
	var history []*genai.Content
	for _, turn := range turns {
		fmt.Printf("user:  %s\n", turn)
		history = append(history, genai.NewContentFromText(turn, genai.RoleUser))
		for step := 0; ; step++ {
			if step == 5 {
				return fmt.Errorf("no final answer after %d model calls", step)
			}
			resp, err := client.Models.GenerateContent(ctx, model, history, config)
			if err != nil {
				return err
			}
			if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
				return fmt.Errorf("the model returned no candidate")
			}
			history = append(history, resp.Candidates[0].Content)
			calls := resp.FunctionCalls()
			if len(calls) == 0 {
				fmt.Printf("agent: %s\n", resp.Text())
				break
			}
			var results []*genai.Part
			for _, call := range calls {
				city, _ := call.Args["city"].(string)
				result := getWeather(city)
				fmt.Printf("tool:  %s(city=%q) -> %v\n", call.Name, city, result)
				results = append(results, genai.NewPartFromFunctionResponse(call.Name, result))
			}
			history = append(history, genai.NewContentFromParts(results, genai.RoleUser))
		}
	}
	return nil
}
