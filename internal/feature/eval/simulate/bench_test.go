package simulate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/proxy"
)

// BenchmarkReplayedConversations plays 100 scenarios of 5 turns, the
// simulated user replayed, 8 at a time (bench/simulate measures the same
// through the binary against the static baseline).
func BenchmarkReplayedConversations(b *testing.B) {
	var cases []scenarios.Scenario
	for i := range 100 {
		cases = append(cases, scenarios.Scenario{StartingPrompt: fmt.Sprintf("Weather please (%d)", i), ConversationPlan: fmt.Sprintf("Rome (%d)", i)})
	}
	simDir := b.TempDir()
	runOnce := func(pcfg proxy.Config) {
		srv, err := proxy.New(pcfg)
		if err != nil {
			b.Fatal(err)
		}
		model, _ := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: "http://sim.invalid/"}, HTTPClient: &http.Client{Transport: srv.Transport()}})
		adk := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
		defer adk.Close()
		client, _ := adkapi.New(adk.URL, "")
		cfg := scenarios.DefaultSimulatorConfig()
		cfg.MaxAllowedInvocations = 5
		misses := srv.Misses
		if pcfg.Mode != proxy.ModeReplay {
			misses = nil
		}
		r, err := simulate.New(simulate.Options{Server: client, App: "weather", Model: model, Config: cfg, Parallel: 8, Misses: misses, Stats: srv.Stats})
		if err != nil {
			b.Fatal(err)
		}
		var cs []*simulate.Case
		for i := range cases {
			cs = append(cs, &simulate.Case{ID: cases[i].ID(), Scenario: &cases[i], Input: scenarios.DefaultSessionInput()})
		}
		for _, t := range r.Run(context.Background(), cs) {
			if t.Failed() || len(t.Divergences) > 0 {
				b.Fatalf("%s: %s %v", t.Case.ID, t.Failure, t.Divergences)
			}
		}
		srv.Close()
	}
	up := httptest.NewServer(&fakejudge.Handler{Script: func(string, int) fakejudge.Reply { return fakejudge.Reply{Text: "Rome again."} }})
	u, _ := url.Parse(up.URL)
	runOnce(proxy.Config{Mode: proxy.ModeRecord, Dir: simDir, Upstream: u})
	up.Close()
	b.ResetTimer()
	for b.Loop() {
		runOnce(proxy.Config{Mode: proxy.ModeReplay, Lenient: true, Dir: simDir})
	}
}
