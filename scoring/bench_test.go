package scoring

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// engBenchCases builds sessions × perSession invocations of realistic size:
// three model calls (one with thinking and cached prompt), two tool calls
// with nested arguments and their results, a final response of about forty
// words; the expected invocations differ a little (one argument, a few
// words).
func engBenchCases(sessions, perSession int) []Case {
	words := strings.Fields("the weather in the city is mostly sunny with a light breeze from the west and temperatures " +
		"around eighteen degrees celsius in the afternoon falling to eleven at night with no rain expected until the weekend " +
		"when clouds arrive from the atlantic")
	cases := make([]Case, sessions)
	for s := range sessions {
		c := Case{ID: fmt.Sprintf("session/%d", s)}
		for i := range perSession {
			city := fmt.Sprintf("city-%d", (s+i)%97)
			text := strings.Join(words[(i%5):], " ")
			actual := Invocation{
				ID:       fmt.Sprintf("s%d/i%d", s, i),
				UserText: "What is the weather in " + city + " this afternoon, and should I take an umbrella?",
				ToolCalls: []cassettes.ToolCall{
					{ID: "adk-1", Name: "get_weather", Args: map[string]any{"city": city, "units": "metric", "days": 2.0,
						"fields": []any{"temp", "rain", "wind"}, "options": map[string]any{"lang": "en", "detail": true}}},
					{ID: "adk-2", Name: "get_forecast", Args: map[string]any{"city": city, "hours": 12.0}},
				},
				ToolResults: []cassettes.ToolResult{
					{ID: "adk-1", Name: "get_weather", Response: map[string]any{"temp_c": 18.0, "sky": "clear", "wind_kph": 9.0}},
					{ID: "adk-2", Name: "get_forecast", Response: map[string]any{"rain": false}},
				},
				FinalResponse: text,
				Steps: []Step{
					{Agent: "weather", Model: "gemini-2.5-flash", Status: 200, Latency: 812 * time.Millisecond,
						Usage: Usage{Prompt: 1850, Cached: 1024, Candidates: 24, Thoughts: 310, Total: 2184}},
					{Agent: "weather", Model: "gemini-2.5-flash", Status: 200, Latency: 604 * time.Millisecond,
						Usage: Usage{Prompt: 1990, Cached: 1024, Candidates: 18, Total: 2008}},
					{Agent: "weather", Model: "gemini-2.5-flash", Status: 200, Latency: 1210 * time.Millisecond,
						Usage: Usage{Prompt: 2105, Candidates: 61, Thoughts: 120, Total: 2286}},
				},
			}
			expected := Invocation{
				ID:       fmt.Sprintf("e%d/%d", s, i),
				UserText: actual.UserText,
				ToolCalls: []cassettes.ToolCall{
					{Name: "get_weather", Args: map[string]any{"city": city, "units": "metric", "days": 2.0,
						"fields": []any{"temp", "rain", "wind"}, "options": map[string]any{"lang": "en", "detail": true}}},
					{Name: "get_forecast", Args: map[string]any{"city": city, "hours": float64(12 + i%2)}},
				},
				FinalResponse: strings.Join(words[:len(words)-(i%7)], " "),
			}
			c.Actual = append(c.Actual, actual)
			c.Expected = append(c.Expected, expected)
		}
		cases[s] = c
	}
	return cases
}

// BenchmarkEvaluate10kInvocations scores 1,000 sessions of 10 invocations
// with ADK's default criteria plus every run metric.
func BenchmarkEvaluate10kInvocations(b *testing.B) {
	cases := engBenchCases(1000, 10)
	cfg := DefaultConfig()
	cfg.Adkproxy.ReportRunMetrics = true
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := Evaluate(ctx, cfg, cases)
		if len(res.Cases) != 1000 {
			b.Fatal(len(res.Cases))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/invocation")
}

func TestBenchCasesScoreAsDesigned(t *testing.T) {
	cases := engBenchCases(2, 10)
	cfg := DefaultConfig()
	cfg.Adkproxy.ReportRunMetrics = true
	res := Evaluate(context.Background(), cfg, cases)
	m := res.Cases[0].Metrics[0]
	// get_forecast's hours differ in every odd invocation.
	if m.Metric != ToolTrajectoryAvgScore || *m.Score != 0.5 || len(res.Cases[0].Metrics) != 2+len(RunMetrics()) {
		t.Fatalf("%+v", m)
	}
}
