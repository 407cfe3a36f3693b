// Diffs of runs recorded the way a user records them: a scripted model
// behind an in-process adkproxy (adkproxytest) and an agent played with
// the real genai client (agentscenario), two scenarios differing in
// exactly the changes each test expects. Moved here from the cmd suite,
// which keeps the diff command's flags, output and exit statuses.

package rundiff_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
	"github.com/adkproxy/adkproxy/internal/testing/agentscenario"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/scoring"
)

type scenario = agentscenario.Scenario

// record records sc in-process (agentscenario.Record).
func record(t *testing.T, sc *scenario) string {
	t.Helper()
	return agentscenario.Record(t, "run", sc)
}

// load reads a folder or file as the diff command does.
func load(t *testing.T, path string) recorded.Run {
	t.Helper()
	dir, loaded, err := cassettes.LoadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return recorded.Build(dir, loaded)
}

func diffOf(t *testing.T, old, new string, opt rundiff.Options) *rundiff.Report {
	t.Helper()
	return rundiff.Diff(old, new, load(t, old), load(t, new), opt)
}

// changes are every change of the report, cassettes' first.
func changes(r *rundiff.Report) []rundiff.Change {
	var out []rundiff.Change
	for _, c := range r.Cassettes {
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

// docOf is the report as its JSON document says it.
func docOf(t *testing.T, r *rundiff.Report) *rundiff.Report {
	t.Helper()
	var b bytes.Buffer
	if err := rundiff.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc rundiff.Report
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return &doc
}

func kindsOf(changes []rundiff.Change) map[string]int {
	m := map[string]int{}
	for _, c := range changes {
		m[string(c.Kind)]++
	}
	return m
}

// render writes the report with one of the package's writers.
func render(t *testing.T, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func textOf(t *testing.T, r *rundiff.Report, color bool) string {
	return render(t, func(b *bytes.Buffer) error { return rundiff.WriteText(b, r, color) })
}

func markdownOf(t *testing.T, r *rundiff.Report) string {
	return render(t, func(b *bytes.Buffer) error { return rundiff.WriteMarkdown(b, r) })
}

func failures(t *testing.T, r *rundiff.Report, class string, minRouge float64) string {
	t.Helper()
	f, err := r.Failures(class, minRouge)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(f, ", ")
}

// The "done when": one argument changed, one tool call added and
// one answer reworded are exactly the three changes of every format, and
// the args and tools policies fail on them.
func TestThreeChangesInEveryFormat(t *testing.T) {
	t.Parallel()
	old, new := record(t, agentscenario.Weather()), record(t, agentscenario.RefactoredWeather())
	report := diffOf(t, old, new, rundiff.Options{})
	wantLine := "diff: 1 cassette, 2 invocations: 1 same, 1 changed (1 tool added, 1 argument changed, 1 response changed); total tokens "
	if line := rundiff.SummaryLine(report); !strings.HasPrefix(line, wantLine) {
		t.Fatalf("summary line %q, want it to start %q", line, wantLine)
	}
	doc := docOf(t, report)
	changes := changes(doc)
	if len(changes) != 3 {
		t.Fatalf("%d changes, want 3: %+v", len(changes), changes)
	}
	want := []rundiff.Change{
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

	text := textOf(t, report, false)
	for _, w := range []string{
		`~ weather_agent: get_weather(city="Paris", units="fahrenheit")`,
		`units: "celsius" → "fahrenheit"`,
		`+ weather_agent: get_time(city="Paris")`,
		"final response (ROUGE-1 F ",
		"[-It-] {+In Paris it+} is 18°C [-in Paris,-] {+and+} clear.",
		`invocation 2 "And in Tokyo?" same`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	if n := regexp.MustCompile(`(?m)^\s+([~+\-↕] |.*: \S+ → |\[-|tool results:|sent to)`).FindAllString(text, -1); len(n) != 4 {
		// the changed call, its argument, the added call, the word diff
		t.Errorf("text shows %d changed lines, want 4: %q\n%s", len(n), n, text)
	}
	if strings.Contains(text, "\x1b[") {
		t.Errorf("colour without colour:\n%s", text)
	}
	if colored := textOf(t, report, true); !strings.Contains(colored, "\x1b[32m+ weather_agent: get_time") {
		t.Errorf("no colour with colour:\n%s", colored)
	}

	md := markdownOf(t, report)
	for _, w := range []string{
		"<details><summary>invocation 1",
		`! weather_agent: get_weather(city="Paris", units="fahrenheit")`,
		`!     units: "celsius" → "fahrenheit"`,
		`+ weather_agent: get_time(city="Paris")`,
		"- It is 18°C in Paris, clear.\n+ In Paris it is 18°C and clear.",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
	if n := strings.Count(md, "<details>"); n != 1 {
		t.Errorf("%d invocations in the markdown, want only the changed one", n)
	}

	html := render(t, func(b *bytes.Buffer) error { return htmlreport.WriteDiff(b, report) })
	kinds := regexp.MustCompile(`data-kind="([a-z_]+)"`).FindAllStringSubmatch(html, -1)
	if len(kinds) != 3 || kinds[0][1] != "args_changed" || kinds[1][1] != "tool_added" || kinds[2][1] != "response_changed" {
		t.Errorf("html changes: %v", kinds)
	}
	if regexp.MustCompile(`(?i)<script|<link|https?://`).MatchString(html) {
		t.Errorf("the page is not self-contained")
	}

	for _, tc := range []struct {
		class    string
		minRouge float64
		want     string
	}{
		{"args", 0, "1 args_changed"},
		{"tools", 0, "1 tool_added"},
		{"any", 0.99, "response similarity"},
		{"none", 0.1, ""},
	} {
		if got := failures(t, report, tc.class, tc.minRouge); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("failures(%s, %g) = %q, want %q", tc.class, tc.minRouge, got, tc.want)
		}
	}
}

// Every kind of change, on recorded runs with parallel sub-agents, a
// transfer, an extra turn and a dropped session; the reverse comparison
// reports the mirror image; an extra cassette on one side is added.
func TestEveryKindOnRecordedRuns(t *testing.T) {
	t.Parallel()
	old, new := record(t, agentscenario.Trip()), record(t, agentscenario.RefactoredTrip())
	report := diffOf(t, old, new, rundiff.Options{})
	wantLine := "diff: 1 cassette, 5 invocations: 1 same, 2 changed (1 tool removed, 1 tool moved, 1 result field changed, " +
		"1 model changed, 1 config field changed, 1 instruction changed, 1 declaration changed), 1 added, 1 removed; total tokens 380 → 345 (-9.2 %)"
	if line := rundiff.SummaryLine(report); line != wantLine {
		t.Fatalf("summary line %q, want %q", line, wantLine)
	}
	doc := docOf(t, report)
	got := kindsOf(changes(doc))
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
	for _, c := range changes(doc) {
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

	mirror := kindsOf(changes(docOf(t, diffOf(t, new, old, rundiff.Options{}))))
	for k, m := range map[string]string{"session_removed": "session_added", "invocation_added": "invocation_removed", "tool_removed": "tool_added"} {
		if mirror[m] != got[k] || mirror[k] != 0 {
			t.Errorf("reversed: %d %s, want %d (all: %v)", mirror[m], m, got[k], mirror)
		}
	}

	extra := filepath.Join(t.TempDir(), "new")
	os.CopyFS(extra, os.DirFS(new))
	data, _ := os.ReadFile(filepath.Join(extra, "default.yaml"))
	os.WriteFile(filepath.Join(extra, "extra.yaml"), []byte(strings.Replace(string(data), "\nname: default\n", "\nname: extra\n", 1)), 0o644)
	withExtra := docOf(t, diffOf(t, old, extra, rundiff.Options{}))
	if k := kindsOf(changes(withExtra)); k["cassette_added"] != 1 || k["session_added"] != 0 || len(withExtra.Cassettes) != 2 || withExtra.Cassettes[1].Status != "added" {
		t.Errorf("extra cassette: %v, %+v", k, withExtra.Cassettes)
	}
}

// Two recordings of the same agent differ in ids, latency and the
// parallel agents' interleaving, which are no change, even to the
// strictest policy.
func TestIdenticalRecordedRunsHaveNoChange(t *testing.T) {
	t.Parallel()
	for name, sc := range map[string]func() *scenario{"weather": agentscenario.Weather, "trip": agentscenario.Trip} {
		report := diffOf(t, record(t, sc()), record(t, sc()), rundiff.Options{})
		line := rundiff.SummaryLine(report)
		if f := failures(t, report, "any", 1); f != "" || !strings.Contains(line, " same; total tokens ") || !strings.Contains(line, " in both") ||
			strings.Contains(textOf(t, report, false), "changed") {
			t.Errorf("%s: failures %q, summary %q\n%s", name, f, line, textOf(t, report, false))
		}
		if md := markdownOf(t, report); strings.Contains(md, "<details>") {
			t.Errorf("%s: markdown shows an invocation:\n%s", name, md)
		}
	}
}

// Ignore paths and an eval config's arg_matchers decide which argument
// changes count.
func TestIgnoreAndArgMatchersOnRecordedRuns(t *testing.T) {
	t.Parallel()
	old, new := record(t, agentscenario.Weather()), record(t, agentscenario.RefactoredWeather())
	units, err := matcher.ParsePath("units")
	if err != nil {
		t.Fatal(err)
	}
	matchers := func(def string) scoring.ArgMatchers {
		path := filepath.Join(t.TempDir(), "cfg.json")
		os.WriteFile(path, []byte(`{"criteria": {"tool_trajectory_avg_score": 1}, "adkproxy": {"arg_matchers": {"get_weather": {"units": `+def+`}}}}`), 0o644)
		cfg, err := scoring.LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Adkproxy.ArgMatchers
	}
	for name, opt := range map[string]rundiff.Options{"ignore": {Ignore: []matcher.Path{units}}, "arg_matchers": {ArgMatchers: matchers(`"ignore"`)}} {
		report := diffOf(t, old, new, opt)
		if k := kindsOf(changes(docOf(t, report))); failures(t, report, "args", 0) != "" || k["args_changed"] != 0 || k["tool_added"] != 1 || k["response_changed"] != 1 {
			t.Errorf("%s: kinds %v", name, k)
		}
	}
	if k := kindsOf(changes(docOf(t, diffOf(t, old, new, rundiff.Options{ArgMatchers: matchers(`{"regex": "^cel"}`)})))); k["args_changed"] != 1 {
		t.Errorf("a matcher that rejects the new value still counts the change")
	}
}

// A refactor that changes `days: 3` → `5` in a call and `temp_c: 64.4` →
// `64` in a result: every format shows both, and nothing panics.
func TestNumericChangesOnRecordedRuns(t *testing.T) {
	t.Parallel()
	numeric := func(days int, temp float64) *scenario {
		sc := agentscenario.Weather().Clone()
		sc.Sessions[0][0].Replies["weather_agent"][0].Calls[0].Args["days"] = days
		sc.ToolResults["get_weather"]["temp_c"] = temp
		return sc
	}
	report := diffOf(t, record(t, numeric(3, 64.4)), record(t, numeric(5, 64)), rundiff.Options{})
	var args, results int
	for _, c := range changes(docOf(t, report)) {
		switch {
		case c.Kind == "args_changed" && c.Path == "days" && c.Old == "3" && c.New == "5":
			args++
		case c.Kind == "result_changed" && c.Path == "temp_c" && c.Old == "64.4" && c.New == "64":
			results++
		}
	}
	if args != 1 || results != 2 { // the result changed in both turns
		t.Errorf("%d days changes and %d temp_c changes, want 1 and 2", args, results)
	}
	if text := textOf(t, report, false); !strings.Contains(text, "days: 3 → 5") || !strings.Contains(text, "temp_c: 64.4 → 64") {
		t.Errorf("text:\n%s", text)
	}
	if md := markdownOf(t, report); !strings.Contains(md, "days: 3 → 5") {
		t.Errorf("markdown:\n%s", md)
	}
	if html := render(t, func(b *bytes.Buffer) error { return htmlreport.WriteDiff(b, report) }); !strings.Contains(html, "64.4") {
		t.Errorf("the html page lacks the old temperature")
	}
}
