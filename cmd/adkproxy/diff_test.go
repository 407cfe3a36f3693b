package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
	old := recordScenario(t, "old", weatherScenario())
	new := recordScenario(t, "new", refactoredScenario())
	out := filepath.Dir(old)

	doc, r := diffJSON(t, old, new)
	wantLine := "diff: 1 cassette, 2 invocations: 1 same, 1 changed (1 tool added, 1 argument changed, 1 response changed); tokens "
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
