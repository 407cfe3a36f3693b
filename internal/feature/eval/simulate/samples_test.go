package simulate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/proxy"
)

// Two samples of one scenario whose simulated user answers differently the
// second time: each sample's user turns are a cassette of their own
// (<id>@1, <id>@2), the agent's proxy is switched to default@1 then
// default@2 and set back to default, and a replay of the simulated user
// gives each sample its own recorded turns.
func TestRunSamplesKeepEachSamplesUserTurns(t *testing.T) {
	list, err := scenarios.ParseFile("scenarios.json", []byte(`{"scenarios": [{"starting_prompt": "Hi",
	  "conversation_plan": "PLAN-S: ask about the weather."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	id := list[0].ID()
	up := httptest.NewServer(&fakejudge.Handler{Script: func(_ string, seen int) fakejudge.Reply {
		return fakejudge.Reply{Text: fmt.Sprintf("Weather, take %d.", seen+1)}
	}})
	simDir := t.TempDir()
	agent := httptest.NewServer(&fakeadk.Server{Weather: "sunny"})
	defer agent.Close()

	// The adkproxy the agent's server would run under: its control API,
	// every switch seen on the way in.
	upURL, _ := url.Parse(up.URL)
	agentProxy, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: t.TempDir(), Upstream: upURL})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var switches []string
	ctlSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			b, _ := io.ReadAll(r.Body)
			var v struct{ Name string }
			_ = json.Unmarshal(b, &v)
			mu.Lock()
			switches = append(switches, v.Name)
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		agentProxy.ServeHTTP(w, r)
	}))
	defer ctlSrv.Close()
	defer agentProxy.Close()

	playSamples := func(cfg proxy.Config) ([]*simulate.Transcript, proxy.Stats) {
		t.Helper()
		srv, err := proxy.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		model, err := genai.NewClient(t.Context(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: "http://sim.invalid/"}, HTTPClient: &http.Client{Transport: srv.Transport()}})
		if err != nil {
			t.Fatal(err)
		}
		client, _ := adkapi.New(agent.URL, "")
		sc := scenarios.DefaultSimulatorConfig()
		sc.MaxAllowedInvocations = 2
		r, err := simulate.New(simulate.Options{Server: client, App: "weather", Model: model, Config: sc, Misses: srv.Misses, Stats: srv.Stats})
		if err != nil {
			t.Fatal(err)
		}
		cases := []*simulate.Case{{ID: id, Scenario: &list[0], Input: scenarios.DefaultSessionInput()}}
		ts, err := r.RunSamples(t.Context(), cases, 2, &adkapi.ConfirmationReporter{URL: ctlSrv.URL}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		stats := srv.Stats()
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		return ts, stats
	}
	userTurns := func(ts []*simulate.Transcript) (out []string) {
		for _, tr := range ts {
			if tr.Failed() || len(tr.Turns) != 2 {
				t.Fatalf("%s: %d turns, failure %q", tr.Case.Key(), len(tr.Turns), tr.Failure)
			}
			out = append(out, tr.Case.Key()+": "+tr.Turns[1].User.Parts[0].Text)
		}
		return out
	}

	rec, _ := playSamples(proxy.Config{Mode: proxy.ModeRecord, Dir: simDir, Upstream: upURL})
	up.Close()
	want := []string{id + "@1: Weather, take 1.", id + "@2: Weather, take 2."}
	if got := userTurns(rec); !slices.Equal(got, want) {
		t.Errorf("recorded user turns %q, want %q", got, want)
	}
	for n := 1; n <= 2; n++ {
		if _, err := os.Stat(filepath.Join(simDir, fmt.Sprintf("%s@%d.yaml", id, n))); err != nil {
			t.Errorf("sample %d's simulated-user cassette: %v", n, err)
		}
	}
	if !slices.Equal(switches, []string{"default@1", "default@2", "default"}) {
		t.Errorf("the agent's proxy was switched to %q, want default@1, default@2, then back to default", switches)
	}

	rep, stats := playSamples(proxy.Config{Mode: proxy.ModeReplay, Dir: simDir})
	if got := userTurns(rep); !slices.Equal(got, want) {
		t.Errorf("replayed user turns %q, want each sample's own recording %q", got, want)
	}
	if stats.Unused != 0 || stats.Mismatched+stats.Unmatched != 0 {
		t.Errorf("replay of the samples: %+v", stats)
	}
	for _, tr := range rep {
		if len(tr.Divergences) > 0 {
			t.Errorf("%s diverged: %v", tr.Case.Key(), tr.Divergences)
		}
	}
}
