package simulate_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/feature/eval/simulate"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

const scenarioFile = `{"scenarios": [
 {"starting_prompt": "Hi, what's the weather like?",
  "conversation_plan": "PLAN-A: ask for the weather in Paris, then thank the agent and end.",
  "user_persona": "NOVICE"},
 {"starting_prompt": "Weather please",
  "conversation_plan": "PLAN-B: keep asking about the weather in Rome.",
  "user_persona": {"id": "GRUMPY", "description": "A grumpy traveller.", "behaviors": [
    {"name": "Be brief", "description": "Short replies.",
     "behavior_instructions": ["Answer in five words or fewer; write {{ stop_signal }} only when told to stop."],
     "violation_rubrics": ["Long replies."]}]}},
 {"starting_prompt": "Hello", "conversation_plan": "PLAN-C: say nothing."}
]}`

// userScript is the simulated user's model: scenario A thanks the agent
// once Paris's weather is in and stops when asked for more, B keeps asking
// about Rome, C gives an empty answer.
type userScript struct {
	mu      sync.Mutex
	prompts []string
}

func (u *userScript) reply(prompt string, seen int) fakejudge.Reply {
	u.mu.Lock()
	u.prompts = append(u.prompts, prompt)
	u.mu.Unlock()
	history := prompt[strings.LastIndex(prompt, "# Conversation History"):]
	switch {
	case strings.Contains(prompt, "PLAN-A") && strings.Contains(history, "Anything else"):
		return fakejudge.Reply{Text: "Bye! </FINISHED>"}
	case strings.Contains(prompt, "PLAN-A") && strings.Contains(history, "in Paris."):
		return fakejudge.Reply{Text: "Thanks, that is all."}
	case strings.Contains(prompt, "PLAN-A") && seen == 0:
		// Overloaded once: ADK's simulated user retries, and so does ours.
		return fakejudge.Reply{Status: http.StatusServiceUnavailable}
	case strings.Contains(prompt, "PLAN-A"):
		return fakejudge.Reply{Text: "The weather in Paris, please."}
	case strings.Contains(prompt, "PLAN-B"):
		return fakejudge.Reply{Text: "Rome again."}
	}
	return fakejudge.Reply{Text: ""}
}

type run struct {
	out         string
	transcripts []*simulate.Transcript
	report      *simulate.Report
	srv         *proxy.Server
}

// play runs the scenarios against agent with the simulated user recorded
// into (upstream set) or replayed from simDir.
func play(t *testing.T, agent *fakeadk.Server, simDir string, upstream string) run {
	t.Helper()
	cases, err := scenarios.ParseFile("scenarios.json", []byte(scenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	pcfg := proxy.Config{Mode: proxy.ModeReplay, Lenient: true, Dir: simDir}
	if upstream != "" {
		u, _ := url.Parse(upstream)
		pcfg = proxy.Config{Mode: proxy.ModeRecord, Dir: simDir, Upstream: u}
	}
	srv, err := proxy.New(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	model, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://sim.invalid/"}, HTTPClient: &http.Client{Transport: srv.Transport()}})
	if err != nil {
		t.Fatal(err)
	}
	adk := httptest.NewServer(agent)
	defer adk.Close()
	client, err := adkapi.New(adk.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := scenarios.DefaultSimulatorConfig()
	cfg.MaxAllowedInvocations = 4
	cfg.IncludeFunctionCalls = true
	// ADK's retries with a short delay: a 503 is retried at once.
	cfg.ModelConfiguration = json.RawMessage(`{"http_options": {"retry_options": {"initial_delay": 0.01, "jitter": 0}}}`)
	var progress bytes.Buffer
	r, err := simulate.New(simulate.Options{Server: client, App: "weather", Model: model, Config: cfg, Parallel: 2,
		Progress: &progress, Misses: srv.Misses, Stats: srv.Stats})
	if err != nil {
		t.Fatal(err)
	}
	input := scenarios.SessionInput{AppName: "weather", UserID: "tester", State: map[string]any{"units": "metric"}}
	var cs []*simulate.Case
	for i := range cases {
		cs = append(cs, &simulate.Case{ID: cases[i].ID(), Scenario: &cases[i], Input: input})
	}
	ts := r.Run(t.Context(), cs)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	keep := simulate.UseRecordedTimings
	if upstream != "" {
		keep = simulate.SaveTimings
	}
	if err := keep(simDir, ts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "simulate: 3/3 done") {
		t.Errorf("progress line: %q", progress.String())
	}
	scfg, err := scoring.ParseConfig("test_config.json", []byte(`{"criteria": {}, "adkproxy": {"criteria": {"tool_calls": {"max": 5}, "total_tokens": {"max": 100000}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rep := simulate.NewReport(ts, scfg)
	rep.Scores = scoring.Evaluate(t.Context(), scfg, rep.Cases)
	out := t.TempDir()
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
	return run{out: out, transcripts: ts, report: rep, srv: srv}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Three scenarios played two at a time: a NOVICE who stops with the stop
// signal, a custom persona cut off by the turn limit, and a simulated user
// whose reply is empty, which fails that scenario alone. Recorded once,
// replayed with no upstream to the same transcripts, table and eval set;
// an agent that answers differently is reported at the turn it diverged.
func TestSimulateRecordReplayAndDivergence(t *testing.T) {
	user := &userScript{}
	up := httptest.NewServer(&fakejudge.Handler{Script: user.reply})
	simDir := t.TempDir()
	// The recording's agent is slower than the replay's: the replay must
	// still report the recorded durations.
	rec := play(t, &fakeadk.Server{Weather: "sunny", Delay: 20 * time.Millisecond}, simDir, up.URL)
	up.Close()

	a, b, c := rec.transcripts[0], rec.transcripts[1], rec.transcripts[2]
	if a.Status != simulate.StatusStop || len(a.Turns) != 3 || a.Failed() {
		t.Errorf("scenario A: %s after %d turns (%s), want stop_signal_detected after 3", a.Status, len(a.Turns), a.Failure)
	}
	for _, turn := range a.Turns {
		if strings.Contains(strings.ToLower(turn.User.Parts[0].Text), "finished") {
			t.Errorf("the reply holding the stop signal was sent: %q", turn.User.Parts[0].Text)
		}
	}
	if a.Turns[0].User.Parts[0].Text != "Hi, what's the weather like?" {
		t.Errorf("the starting prompt was not sent verbatim: %q", a.Turns[0].User.Parts[0].Text)
	}
	if b.Status != simulate.StatusTurnLimit || len(b.Turns) != 4 {
		t.Errorf("scenario B: %s after %d turns, want turn_limit_reached after 4", b.Status, len(b.Turns))
	}
	if c.Status != simulate.StatusNoMessage || !c.Failed() || !strings.Contains(c.Failure, "turn 2") || len(c.Turns) != 1 {
		t.Errorf("scenario C: %s %q after %d turns, want no_message_generated at turn 2", c.Status, c.Failure, len(c.Turns))
	}
	var novice, grumpy string
	for _, p := range user.prompts {
		if strings.Contains(p, "PLAN-A") && strings.Contains(p, "in Paris.") {
			novice = p
		}
		if strings.Contains(p, "PLAN-B") {
			grumpy = p
		}
	}
	if strings.Contains(novice, "{{") || !strings.Contains(novice, simulate.StopSignal) ||
		!strings.Contains(novice, "weather_agent called tool 'get_weather' with args: {'city': 'Paris'}") ||
		!strings.Contains(novice, "Tool 'get_weather' returned: {'city': 'Paris', 'sky': 'sunny', 'temp_c': 21}") ||
		!strings.Contains(novice, "user: The weather in Paris, please.") {
		t.Errorf("NOVICE prompt:\n%s", novice)
	}
	if !strings.Contains(grumpy, "A grumpy traveller.") || !strings.Contains(grumpy, "## Be brief") ||
		!strings.Contains(grumpy, "write </finished> only when told") {
		t.Errorf("custom persona prompt:\n%s", grumpy)
	}

	// The eval set reads back as ADK eval cases: one static conversation
	// per scenario, tool calls from invocation_events.
	exp, err := scoring.LoadExpected(filepath.Join(rec.out, simulate.EvalSetFile))
	if err != nil || len(exp.Cases) != 3 || exp.Cases[0].ID != a.Case.ID || len(exp.Cases[0].Invocations) != 3 {
		t.Fatalf("the eval set does not read back: %v %+v", err, exp)
	}
	if inv := exp.Cases[0].Invocations[1]; len(inv.ToolCalls) != 1 || inv.ToolCalls[0].Name != "get_weather" ||
		inv.FinalResponse != "It is 21°C and sunny in Paris." || inv.UserText != "The weather in Paris, please." {
		t.Errorf("invocation 2 reads back as %+v", inv)
	}

	// sessions.csv has score --format csv's columns (less the label), then
	// simulate's own.
	header, _ := csv.NewReader(strings.NewReader(read(t, filepath.Join(rec.out, simulate.SessionsCSV)))).Read()
	want := append([]string{"eval_set_id", "eval_id", "session_id", "status", "tool_calls", "tool_calls.status",
		"total_tokens", "total_tokens.status"}, scoring.RunColumns()...)
	want = append(want, "final_response", "agent_name", "stop_status")
	if !slices.Equal(header, want) {
		t.Errorf("sessions.csv columns\n%q\nwant\n%q", header, want)
	}

	rep := play(t, &fakeadk.Server{Weather: "sunny"}, simDir, "")
	// Byte for byte, durations included: the replay reports the agent
	// turn times the recording measured.
	for _, f := range []string{simulate.QALogFile, simulate.EvalSetFile, simulate.SessionsCSV, simulate.SessionsJSON} {
		if got, want := read(t, filepath.Join(rep.out, f)), read(t, filepath.Join(rec.out, f)); got != want {
			t.Errorf("%s differs in replay:\n%s\nrecorded:\n%s", f, got, want)
		}
	}
	if summary := read(t, filepath.Join(rep.out, simulate.SummaryFile)); !strings.Contains(summary, `"replay_latency"`) {
		t.Errorf("the replay's own agent latencies are not in eval_summary.json:\n%s", summary)
	}
	if st := rep.srv.Stats(); st.Mismatched+st.Unmatched+st.Unused != 0 || st.Replayed == 0 {
		t.Errorf("replay stats %+v", st)
	}

	changed := play(t, &fakeadk.Server{Weather: "rainy"}, simDir, "")
	ca := changed.transcripts[0]
	// Turn 4 differs too (its history holds the same reply): the first
	// divergence is where the conversations parted.
	if len(ca.Divergences) != 2 || ca.Divergences[0].Turn != 3 || ca.Divergences[0].Scenario != a.Case.ID {
		t.Fatalf("divergences %+v, want scenario %s at turn 3", ca.Divergences, a.Case.ID)
	}
	msg := ca.Divergences[0].String()
	if !strings.HasPrefix(msg, "scenario "+a.Case.ID+" diverged at turn 3:") || !strings.Contains(msg, "rainy") {
		t.Errorf("divergence message: %s", msg)
	}
	if ca.Turns[2].User.Parts[0].Text != "Thanks, that is all." || ca.Status != simulate.StatusStop {
		t.Errorf("after the divergence the recorded turn was not sent: %q, %s", ca.Turns[2].User.Parts[0].Text, ca.Status)
	}
	if d := changed.transcripts[1].Divergences; len(d) == 0 || d[0].Turn != 3 {
		t.Errorf("scenario B: divergences %+v, want turn 3", changed.transcripts[1].Divergences)
	}
}
