package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The diff command on recorded runs: the three-change scenario in
// every format, every kind of change, identical runs, ignore paths and
// argument matchers, version 1 files, exit statuses.

// weatherScenario is the golden run of the diff tests: one agent, one
// session of two turns, each a get_weather call and an answer.
func weatherScenario() *scenario {
	return &scenario{
		Agents: map[string]agentDef{
			"weather_agent": {Model: "gemini-2.5-flash", Instruction: "You answer questions about the weather.", Tools: []string{"get_weather", "get_time"}, Temperature: 0.2},
		},
		Sessions: [][]turn{{
			{User: "What is the weather in Paris?", Agents: []string{"weather_agent"}, Replies: map[string][]reply{"weather_agent": {
				{Calls: []toolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris", "units": "celsius"}}}},
				{Text: "It is 18°C in Paris, clear."},
			}}},
			{User: "And in Tokyo?", Agents: []string{"weather_agent"}, Replies: map[string][]reply{"weather_agent": {
				{Calls: []toolCall{{Name: "get_weather", Args: map[string]any{"city": "Tokyo", "units": "celsius"}}}},
				{Text: "It is 24°C in Tokyo, clear."},
			}}},
		}},
		ToolResults: map[string]map[string]any{"get_weather": {"temp_c": 18, "sky": "clear"}, "get_time": {"time": "10:00"}},
	}
}

// refactoredScenario differs from the golden run in exactly three things:
// one argument changed, one tool call added, one answer reworded.
func refactoredScenario() *scenario {
	sc := weatherScenario().clone()
	sc.Sessions[0][0].Replies["weather_agent"] = []reply{
		{Calls: []toolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris", "units": "fahrenheit"}}}},
		{Calls: []toolCall{{Name: "get_time", Args: map[string]any{"city": "Paris"}}}},
		{Text: "In Paris it is 18°C and clear."},
	}
	return sc
}

// diffDoc is the part of the JSON document the tests read.
type diffDoc struct {
	Summary struct {
		Invocations, Same, Changed, Added, Removed int
		Changes                                    map[string]int
	}
	Cassettes []struct {
		Name, Status string
		Changes      []diffChange
		Sessions     []struct {
			Status      string
			Changes     []diffChange
			Invocations []struct {
				Status     string
				Similarity *float64
				Changes    []diffChange
				Tools      []struct{ Status, Agent, Name string }
			}
		}
	}
}

type diffChange struct{ Kind, Agent, Tool, Path, Old, New, Words string }

func (d *diffDoc) changes() []diffChange {
	var out []diffChange
	for _, c := range d.Cassettes {
		out = append(out, c.Changes...)
		for _, s := range c.Sessions {
			out = append(out, s.Changes...)
			for _, inv := range s.Invocations {
				out = append(out, inv.Changes...)
			}
		}
	}
	return out
}

func diffJSON(t *testing.T, args ...string) (*diffDoc, result) {
	t.Helper()
	r := adkproxy(t, nil, append([]string{"diff", "--format", "json"}, args...)...)
	var doc diffDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\nstdout %s\nstderr %s", r.code, err, r.stdout, r.stderr)
	}
	return &doc, r
}

// The "done when": one argument changed, one tool call added and
// one answer reworded are exactly the three changes of every format, and
// --fail-on args fails.
func TestDiffShowsExactlyTheThreeChanges(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", weatherScenario())
	new := recordScenario(t, "new", refactoredScenario())
	out := filepath.Dir(old)

	doc, r := diffJSON(t, old, new)
	wantLine := "diff: 1 cassette, 2 invocations: 1 same, 1 changed (1 tool added, 1 argument changed, 1 response changed); total tokens "
	if r.code != 0 || !strings.HasPrefix(r.stderr, wantLine) {
		t.Fatalf("exit %d, stderr %q, want it to start %q", r.code, r.stderr, wantLine)
	}
	changes := doc.changes()
	if len(changes) != 3 {
		t.Fatalf("%d changes, want 3: %+v", len(changes), changes)
	}
	want := []diffChange{
		{Kind: "args_changed", Agent: "weather_agent", Tool: "get_weather", Path: "units", Old: `"celsius"`, New: `"fahrenheit"`},
		{Kind: "tool_added", Agent: "weather_agent", Tool: "get_time", New: `get_time(city="Paris")`},
	}
	for i, w := range want {
		if changes[i] != w {
			t.Errorf("change %d = %+v, want %+v", i, changes[i], w)
		}
	}
	if c := changes[2]; c.Kind != "response_changed" || c.Old != "It is 18°C in Paris, clear." || c.New != "In Paris it is 18°C and clear." || c.Words == "" {
		t.Errorf("change 2 = %+v", c)
	}
	inv := doc.Cassettes[0].Sessions[0].Invocations[0]
	if inv.Similarity == nil || *inv.Similarity < 0.5 || *inv.Similarity >= 1 {
		t.Errorf("similarity %v", inv.Similarity)
	}
	if len(doc.Summary.Changes) != 3 || doc.Summary.Same != 1 || doc.Summary.Changed != 1 {
		t.Errorf("summary %+v", doc.Summary)
	}

	text := adkproxy(t, nil, "diff", old, new)
	os.WriteFile(filepath.Join(out, "diff.txt"), []byte(text.stdout), 0o644)
	for _, w := range []string{
		`~ weather_agent: get_weather(city="Paris", units="fahrenheit")`,
		`units: "celsius" → "fahrenheit"`,
		`+ weather_agent: get_time(city="Paris")`,
		"final response (ROUGE-1 F ",
		"[-It-] {+In Paris it+} is 18°C [-in Paris,-] {+and+} clear.",
		`invocation 2 "And in Tokyo?" same`,
	} {
		if !strings.Contains(text.stdout, w) {
			t.Errorf("text lacks %q:\n%s", w, text.stdout)
		}
	}
	if n := regexp.MustCompile(`(?m)^\s+([~+\-↕] |.*: \S+ → |\[-|tool results:|sent to)`).FindAllString(text.stdout, -1); len(n) != 4 {
		// the changed call, its argument, the added call, the word diff
		t.Errorf("text shows %d changed lines, want 4: %q\n%s", len(n), n, text.stdout)
	}
	if strings.Contains(text.stdout, "\x1b[") {
		t.Errorf("colour into a pipe:\n%s", text.stdout)
	}
	if colored := adkproxy(t, nil, "diff", "--color", "always", old, new); !strings.Contains(colored.stdout, "\x1b[32m+ weather_agent: get_time") {
		t.Errorf("--color always has no colour:\n%s", colored.stdout)
	}

	md := adkproxy(t, nil, "diff", "--format", "markdown", old, new)
	os.WriteFile(filepath.Join(out, "diff.md"), []byte(md.stdout), 0o644)
	for _, w := range []string{
		"<details><summary>invocation 1",
		`! weather_agent: get_weather(city="Paris", units="fahrenheit")`,
		`!     units: "celsius" → "fahrenheit"`,
		`+ weather_agent: get_time(city="Paris")`,
		"- It is 18°C in Paris, clear.\n+ In Paris it is 18°C and clear.",
	} {
		if !strings.Contains(md.stdout, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.stdout)
		}
	}
	if n := strings.Count(md.stdout, "<details>"); n != 1 {
		t.Errorf("%d invocations in the markdown, want only the changed one", n)
	}

	page := filepath.Join(out, "diff.html")
	if h := adkproxy(t, nil, "diff", "--format", "html", "--out", page, old, new); h.code != 0 || h.stdout != "" {
		t.Fatalf("html: exit %d, stdout %q, stderr %s", h.code, h.stdout, h.stderr)
	}
	html, _ := os.ReadFile(page)
	kinds := regexp.MustCompile(`data-kind="([a-z_]+)"`).FindAllStringSubmatch(string(html), -1)
	if len(kinds) != 3 || kinds[0][1] != "args_changed" || kinds[1][1] != "tool_added" || kinds[2][1] != "response_changed" {
		t.Errorf("html changes: %v", kinds)
	}
	if regexp.MustCompile(`(?i)<script|<link|https?://`).Match(html) {
		t.Errorf("the page is not self-contained")
	}

	if f := adkproxy(t, nil, "diff", "--fail-on", "args", old, new); f.code != 1 || !strings.Contains(f.stderr, "1 args_changed") {
		t.Errorf("--fail-on args: exit %d, stderr %s", f.code, f.stderr)
	}
	if f := adkproxy(t, nil, "diff", "--fail-on", "tools", old, new); f.code != 1 || !strings.Contains(f.stderr, "1 tool_added") {
		t.Errorf("--fail-on tools: exit %d, stderr %s", f.code, f.stderr)
	}
	if f := adkproxy(t, nil, "diff", "--min-rouge", "0.99", old, new); f.code != 1 || !strings.Contains(f.stderr, "response similarity") {
		t.Errorf("--min-rouge 0.99: exit %d, stderr %s", f.code, f.stderr)
	}
	if f := adkproxy(t, nil, "diff", "--fail-on", "none", "--min-rouge", "0.1", old, new); f.code != 0 {
		t.Errorf("--fail-on none: exit %d, stderr %s", f.code, f.stderr)
	}
}

// tripScenario has parallel sub-agents, a transfer, sessions of several
// turns and one session the refactor drops.
func tripScenario() *scenario {
	agents := []string{"weather_agent", "time_agent"}
	return &scenario{
		Agents: map[string]agentDef{
			"coordinator":   {Model: "gemini-2.5-flash", Instruction: "You route questions.", Tools: []string{"transfer_to_agent"}},
			"weather_agent": {Model: "gemini-2.5-flash", Instruction: "You answer about the weather.", Tools: []string{"get_weather"}, Temperature: 0.2},
			"time_agent":    {Model: "gemini-2.5-flash", Instruction: "You tell the time.", Tools: []string{"get_time"}},
		},
		Sessions: [][]turn{
			{
				{User: "Check Paris", Agents: agents, Parallel: true, Replies: map[string][]reply{
					"weather_agent": {{Calls: []toolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}}, {Text: "Sunny in Paris."}},
					"time_agent":    {{Calls: []toolCall{{Name: "get_time", Args: map[string]any{"city": "Paris"}}}}, {Text: "It is 10:00 in Paris."}},
				}},
				{User: "Thanks", Agents: []string{"time_agent"}, Replies: map[string][]reply{"time_agent": {{Text: "You are welcome."}}}},
			},
			{
				{User: "Compare Rome and Oslo", Agents: []string{"coordinator", "weather_agent"}, Replies: map[string][]reply{
					"coordinator": {{Calls: []toolCall{{Name: "transfer_to_agent", Args: map[string]any{"agent_name": "weather_agent"}}}}, {Text: "Asking the weather agent."}},
					"weather_agent": {
						{Calls: []toolCall{{Name: "get_weather", Args: map[string]any{"city": "Rome"}}}},
						{Calls: []toolCall{{Name: "get_weather", Args: map[string]any{"city": "Oslo"}}}},
						{Calls: []toolCall{{Name: "get_time", Args: map[string]any{"city": "Rome"}}}},
						{Text: "Rome is warmer than Oslo."},
					},
				}},
			},
			{
				{User: "Goodbye", Agents: []string{"time_agent"}, Replies: map[string][]reply{"time_agent": {{Text: "Bye."}}}},
			},
		},
		ToolResults: map[string]map[string]any{"get_weather": {"sky": "clear"}, "get_time": {"time": "10:00"}, "transfer_to_agent": {}},
	}
}

// refactoredTrip changes everything the diff classifies except arguments
// and answers (the three-change test has those).
func refactoredTrip() *scenario {
	sc := tripScenario().clone()
	w := sc.Agents["weather_agent"]
	w.Model, w.Temperature, w.Instruction = "gemini-2.5-pro", 0.7, "You answer about the weather, briefly."
	w.Tools = []string{"get_weather", "get_forecast"}
	sc.Agents["weather_agent"] = w
	sc.ToolResults["get_time"] = map[string]any{"time": "11:00"}
	s1 := sc.Sessions[0]
	extra := turn{User: "And tomorrow?", Agents: []string{"time_agent"}, Replies: map[string][]reply{"time_agent": {{Text: "Tomorrow too."}}}}
	sc.Sessions[0] = []turn{s1[0], extra, s1[1]}
	rome := sc.Sessions[1][0].Replies["weather_agent"]
	sc.Sessions[1][0].Replies["weather_agent"] = []reply{rome[1], rome[0], rome[3]} // Oslo first, no get_time
	sc.Sessions = sc.Sessions[:2]
	return sc
}

func kindsOf(changes []diffChange) map[string]int {
	m := map[string]int{}
	for _, c := range changes {
		m[c.Kind]++
	}
	return m
}

// Every kind of change, on recorded runs with parallel sub-agents, a
// transfer, an extra turn and a dropped session; the reverse comparison
// reports the mirror image.
func TestDiffEveryKind(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", tripScenario())
	new := recordScenario(t, "new", refactoredTrip())

	doc, r := diffJSON(t, old, new)
	wantLine := "diff: 1 cassette, 5 invocations: 1 same, 2 changed (1 tool removed, 1 tool moved, 1 result field changed, " +
		"1 model changed, 1 config field changed, 1 instruction changed, 1 declaration changed), 1 added, 1 removed; total tokens 380 → 345 (-9.2 %)\n"
	if r.code != 0 || r.stderr != wantLine {
		t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, wantLine)
	}
	got := kindsOf(doc.changes())
	// weather_agent's model, config, instruction and tools are compared
	// once per invocation it runs in: two.
	want := map[string]int{"tool_moved": 1, "tool_removed": 1, "result_changed": 1, "invocation_added": 1, "session_removed": 1,
		"model_changed": 2, "config_changed": 2, "instruction_changed": 2, "tools_changed": 2}
	if len(got) != len(want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	for _, c := range doc.changes() {
		switch c.Kind {
		case "tool_moved":
			if c.Agent != "weather_agent" || c.Tool != "get_weather" || c.Old != "call 2" || c.New != "call 3" {
				t.Errorf("moved: %+v", c)
			}
		case "tool_removed":
			if c.Agent != "weather_agent" || c.Old != `get_time(city="Rome")` {
				t.Errorf("removed: %+v", c)
			}
		case "result_changed":
			if c.Agent != "time_agent" || c.Tool != "get_time" || c.Path != "time" || c.Old != `"10:00"` || c.New != `"11:00"` {
				t.Errorf("result: %+v", c)
			}
		case "model_changed":
			if c.Agent != "weather_agent" || c.Old != "gemini-2.5-flash" || c.New != "gemini-2.5-pro" {
				t.Errorf("model: %+v", c)
			}
		case "config_changed":
			if c.Path != "temperature" || c.Old != "0.2" || c.New != "0.7" {
				t.Errorf("config: %+v", c)
			}
		case "instruction_changed":
			if !strings.Contains(c.Words, "{+weather, briefly.+}") {
				t.Errorf("instruction: %+v", c)
			}
		case "tools_changed":
			if c.Tool != "get_forecast" || c.Old != "" || !strings.Contains(c.New, `"name":"get_forecast"`) {
				t.Errorf("tools: %+v", c)
			}
		case "invocation_added":
			if c.New != "And tomorrow?" {
				t.Errorf("added: %+v", c)
			}
		case "session_removed":
			if c.Old != "Goodbye" {
				t.Errorf("session: %+v", c)
			}
		}
	}
	// The transfer and the parallel agents' calls are shown with their
	// agent; the agents' interleaving is no change.
	s1, s2 := doc.Cassettes[0].Sessions[0], doc.Cassettes[0].Sessions[1]
	if s := s1.Invocations[0].Tools; len(s) != 2 || s[0].Agent == s[1].Agent || s[0].Status != "same" || s[1].Status != "same" {
		t.Errorf("parallel agents' calls: %+v", s)
	}
	if s := s2.Invocations[0].Tools; len(s) != 4 || s[0].Agent != "coordinator" || s[0].Name != "transfer_to_agent" || s[0].Status != "same" {
		t.Errorf("transfer: %+v", s)
	}
	if st := []string{s1.Invocations[0].Status, s1.Invocations[1].Status, s1.Invocations[2].Status}; st[1] != "added" || st[2] != "same" {
		t.Errorf("the extra turn shifts nothing: %v", st)
	}
	if s := doc.Summary; s.Invocations != 5 || s.Added != 1 || s.Removed != 1 {
		t.Errorf("summary %+v", s)
	}

	back, _ := diffJSON(t, new, old)
	mirror := kindsOf(back.changes())
	for k, m := range map[string]string{"session_removed": "session_added", "invocation_added": "invocation_removed", "tool_removed": "tool_added"} {
		if mirror[m] != got[k] || mirror[k] != 0 {
			t.Errorf("reversed: %d %s, want %d (all: %v)", mirror[m], m, got[k], mirror)
		}
	}

	// An extra cassette on one side.
	extra := filepath.Join(t.TempDir(), "new")
	os.CopyFS(extra, os.DirFS(new))
	data, _ := os.ReadFile(filepath.Join(extra, "default.yaml"))
	os.WriteFile(filepath.Join(extra, "extra.yaml"), []byte(strings.Replace(string(data), "\nname: default\n", "\nname: extra\n", 1)), 0o644)
	withExtra, _ := diffJSON(t, old, extra)
	if k := kindsOf(withExtra.changes()); k["cassette_added"] != 1 || k["session_added"] != 0 || len(withExtra.Cassettes) != 2 || withExtra.Cassettes[1].Status != "added" {
		t.Errorf("extra cassette: %v, %+v", k, withExtra.Cassettes)
	}
}

// Two recordings of the same agent differ in ids, latency and the
// parallel agents' interleaving, which are no change: exit 0 even with
// --fail-on any.
func TestDiffIdenticalRunsHaveNoChange(t *testing.T) {
	t.Parallel()
	for name, sc := range map[string]func() *scenario{"weather": weatherScenario, "trip": tripScenario} {
		a := recordScenario(t, name+"-a", sc())
		b := recordScenario(t, name+"-b", sc())
		r := adkproxy(t, nil, "diff", "--fail-on", "any", "--min-rouge", "1", a, b)
		if r.code != 0 || !strings.Contains(r.stderr, " same; total tokens ") || !strings.Contains(r.stderr, " in both") || strings.Contains(r.stdout, "changed") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", name, r.code, r.stdout, r.stderr)
		}
		if md := adkproxy(t, nil, "diff", "--format", "markdown", a, b); strings.Contains(md.stdout, "<details>") {
			t.Errorf("%s: markdown shows an invocation:\n%s", name, md.stdout)
		}
	}
}

// --ignore and an eval config's arg_matchers decide which argument
// changes count.
func TestDiffIgnoreAndArgMatchers(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", weatherScenario())
	new := recordScenario(t, "new", refactoredScenario())
	for _, args := range [][]string{{"--ignore", "units"}, {"--config", writeTemp(t, "cfg.json", `{"criteria": {"tool_trajectory_avg_score": 1}, "adkproxy": {"arg_matchers": {"get_weather": {"units": "ignore"}}}}`)}} {
		doc, r := diffJSON(t, append(args, "--fail-on", "args", old, new)...)
		if k := kindsOf(doc.changes()); r.code != 0 || k["args_changed"] != 0 || k["tool_added"] != 1 || k["response_changed"] != 1 {
			t.Errorf("%v: exit %d, kinds %v, stderr %s", args, r.code, k, r.stderr)
		}
	}
	cfg := writeTemp(t, "cfg.json", `{"criteria": {"tool_trajectory_avg_score": 1}, "adkproxy": {"arg_matchers": {"get_weather": {"units": {"regex": "^cel"}}}}}`)
	if doc, _ := diffJSON(t, "--config", cfg, old, new); kindsOf(doc.changes())["args_changed"] != 1 {
		t.Errorf("a matcher that rejects the new value still counts the change")
	}
}

// A version 1 file (interactions, no sessions) is organised as replay
// would and compares like the version 2 file it was made from; two files
// are compared whatever their names.
func TestDiffVersion1File(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", weatherScenario())
	new := recordScenario(t, "new", refactoredScenario())
	v1 := filepath.Join(t.TempDir(), "golden.yaml")
	writeVersion1(t, filepath.Join(old, "default.yaml"), v1)
	want, _ := diffJSON(t, old, new)
	got, r := diffJSON(t, v1, filepath.Join(new, "default.yaml"))
	if r.code != 0 || !reflectEqual(kindsOf(got.changes()), kindsOf(want.changes())) || len(got.changes()) != 3 {
		t.Errorf("version 1: exit %d, %v, want %v\n%s", r.code, kindsOf(got.changes()), kindsOf(want.changes()), r.stderr)
	}
}

func TestDiffUsageAndDataErrors(t *testing.T) {
	t.Parallel()
	dir := recordScenario(t, "run", weatherScenario())
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff", dir}, 64, "want two paths"},
		{[]string{"diff", dir, dir, "--fail-on", "all"}, 64, `--fail-on "all"`}, // read after the paths too
		{[]string{"diff", "--format", "yaml", dir, dir}, 64, `--format "yaml"`},
		{[]string{"diff", "--fail-on", "all", dir, dir}, 64, `--fail-on "all"`},
		{[]string{"diff", "--color", "sometimes", dir, dir}, 64, `--color "sometimes"`},
		{[]string{"diff", "--ignore", "a[", dir, dir}, 64, "unclosed ["},
		{[]string{"diff", "--min-rouge", "2", dir, dir}, 64, "--min-rouge 2"},
		{[]string{"diff", dir, filepath.Join(dir, "missing")}, 65, "NEW: "},
		{[]string{"diff", "--config", filepath.Join(dir, "missing.json"), dir, dir}, 65, "--config"},
		{[]string{"diff", "--out", filepath.Join(dir, "default.yaml", "x.json"), dir, dir}, 73, "--out"},
	} {
		r := adkproxy(t, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", tc.args, r.code, tc.code, r.stderr, tc.want)
		}
	}
}

// A tool's HTTP requests (recorded through the forward proxy) align with
// the agent's tool calls: a query parameter that changed is an argument
// change of the request, beside the one of the call that made it.
func TestDiffHTTPToolCalls(t *testing.T) {
	t.Parallel()
	withAPI := func(units string) *scenario {
		sc := weatherScenario().clone()
		sc.HTTPTools = map[string]string{"get_weather": "/v1/current"}
		sc.Sessions[0][0].Replies["weather_agent"][0].Calls[0].Args["units"] = units
		return sc
	}
	old := recordScenario(t, "old", withAPI("celsius"))
	new := recordScenario(t, "new", withAPI("fahrenheit"))
	doc, r := diffJSON(t, old, new)
	changes := doc.changes()
	want := []diffChange{
		{Kind: "args_changed", Agent: "weather_agent", Tool: "get_weather", Path: "units", Old: `"celsius"`, New: `"fahrenheit"`},
		{Kind: "args_changed", Agent: "weather_agent", Tool: "http GET weather.example.test/v1/current", Path: "units", Old: `"celsius"`, New: `"fahrenheit"`},
	}
	if r.code != 0 || len(changes) != 2 || changes[0] != want[0] || changes[1] != want[1] {
		t.Fatalf("exit %d, changes %+v, want %+v\n%s", r.code, changes, want, r.stderr)
	}
	tools := doc.Cassettes[0].Sessions[0].Invocations[1].Tools
	if len(tools) != 2 || tools[1].Name != "http GET weather.example.test/v1/current" || tools[1].Status != "same" {
		t.Errorf("the Tokyo turn's calls: %+v", tools)
	}
	text := adkproxy(t, nil, "diff", old, new)
	if !strings.Contains(text.stdout, `~ weather_agent: http GET weather.example.test/v1/current(city="Paris", units="fahrenheit")`) {
		t.Errorf("text:\n%s", text.stdout)
	}
	page := adkproxy(t, nil, "diff", "--format", "html", old, new)
	for _, want := range []string{
		`<div class="item http mono args_changed" data-status="args_changed">⇄ http GET weather.example.test/v1/current?city=Paris&amp;units=celsius → 200</div>`,
		`<div class="item http mono args_changed" data-status="args_changed">⇄ http GET weather.example.test/v1/current?city=Paris&amp;units=fahrenheit → 200</div>`,
	} {
		if !strings.Contains(page.stdout, want) {
			t.Errorf("the page's timelines lack %s", want)
		}
	}
}

// The diff command on numeric changes: a changed number in a tool's
// arguments or result is a change like any other, in every format.

// A refactor that changes `days: 3` → `5` in a call and `temp_c: 64.4` →
// `64` in a result: every format shows both, and nothing panics.
func TestDiffShowsNumericChanges(t *testing.T) {
	t.Parallel()
	numeric := func(days int, temp float64) *scenario {
		sc := weatherScenario().clone()
		sc.Sessions[0][0].Replies["weather_agent"][0].Calls[0].Args["days"] = days
		sc.ToolResults["get_weather"]["temp_c"] = temp
		return sc
	}
	old := recordScenario(t, "old", numeric(3, 64.4))
	new := recordScenario(t, "new", numeric(5, 64))

	doc, r := diffJSON(t, old, new)
	if r.code != 0 {
		t.Fatalf("json: exit %d\n%s", r.code, r.stderr)
	}
	var args, results int
	for _, c := range doc.changes() {
		switch {
		case c.Kind == "args_changed" && c.Path == "days" && c.Old == "3" && c.New == "5":
			args++
		case c.Kind == "result_changed" && c.Path == "temp_c" && c.Old == "64.4" && c.New == "64":
			results++
		}
	}
	if args != 1 || results != 2 { // the result changed in both turns
		t.Errorf("%d days changes and %d temp_c changes, want 1 and 2: %+v", args, results, doc.changes())
	}

	text := adkproxy(t, nil, "diff", old, new)
	if text.code != 0 || !strings.Contains(text.stdout, "days: 3 → 5") || !strings.Contains(text.stdout, "temp_c: 64.4 → 64") {
		t.Errorf("text: exit %d\nstdout %s\nstderr %s", text.code, text.stdout, text.stderr)
	}
	md := adkproxy(t, nil, "diff", "--format", "markdown", old, new)
	if md.code != 0 || !strings.Contains(md.stdout, "days: 3 → 5") {
		t.Errorf("markdown: exit %d\nstdout %s\nstderr %s", md.code, md.stdout, md.stderr)
	}
	page := filepath.Join(t.TempDir(), "diff.html")
	if h := adkproxy(t, nil, "diff", "--format", "html", "--out", page, old, new); h.code != 0 {
		t.Errorf("html: exit %d\nstderr %s", h.code, h.stderr)
	}
	if html, _ := os.ReadFile(page); !strings.Contains(string(html), "64.4") {
		t.Errorf("the html page lacks the old temperature")
	}
}
