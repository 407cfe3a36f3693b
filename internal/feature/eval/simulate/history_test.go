package simulate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
)

// A turn's cost does not grow with the turns before it: each event of the
// history is read once, not again for every later prompt (before, turn n
// decoded all the events so far, so a conversation's cost grew with the
// square of its length). Counted in allocations, not time: a 16-turn
// conversation allocates per turn about what a 4-turn one does.
func TestTurnCostDoesNotGrowWithHistory(t *testing.T) {
	// A tool answer with many keys makes reading an event cost something.
	fields := make([]string, 40)
	for i := range fields {
		fields[i] = fmt.Sprintf(`"field_%d": {"value": %d, "unit": "C", "ok": true}`, i, i)
	}
	adk := httptest.NewServer(&fakeadk.Server{Weather: "sunny", ToolResult: json.RawMessage("{" + strings.Join(fields, ", ") + "}")})
	defer adk.Close()
	up := &userUpstream{answer: func(string) string { return textAnswer("And Rome again, please.") }}
	model := httptest.NewServer(up)
	defer model.Close()
	client, _ := adkapi.New(adk.URL, "")
	gc, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: model.URL + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	perTurn := func(turns int) float64 {
		cfg := scenarios.DefaultSimulatorConfig()
		cfg.MaxAllowedInvocations = turns
		cfg.IncludeFunctionCalls = true
		r, err := simulate.New(simulate.Options{Server: client, App: "weather", Model: gc, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		c := scenarioCase(t, fmt.Sprintf(`{"starting_prompt": "Weather in Rome?", "conversation_plan": "Ask about Rome (%d)."}`, turns))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ts := r.Run(t.Context(), []*simulate.Case{c})
		runtime.ReadMemStats(&after)
		if ts[0].Failed() || len(ts[0].Turns) != turns {
			t.Fatalf("%d turns: %s, %d turns played", turns, ts[0].Failure, len(ts[0].Turns))
		}
		// The last prompt holds every tool answer: the history is all there.
		if last := up.bodies[len(up.bodies)-1]; strings.Count(last, "field_39") != turns-1 {
			t.Fatalf("the last prompt of %d turns shows %d tool answers, want %d", turns, strings.Count(last, "field_39"), turns-1)
		}
		return float64(after.Mallocs-before.Mallocs) / float64(turns)
	}
	perTurn(4) // warm up connections
	short, long := perTurn(4), perTurn(16)
	if long > 1.5*short {
		t.Errorf("allocations per turn: %.0f in a 4-turn conversation, %.0f in a 16-turn one: a turn's cost grows with the history", short, long)
	}
}
