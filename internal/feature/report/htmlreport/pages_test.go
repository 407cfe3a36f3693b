// The HTML pages of diff, ls and score: in a real browser (headless
// Chromium) at a desktop's and a phone's width, and what they say in
// words, for runs recorded in-process (agentscenario). Moved here from the
// cmd suite, which checks only that each command writes these pages.

package htmlreport_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
	"github.com/adkproxy/adkproxy/internal/testing/agentscenario"
	"github.com/adkproxy/adkproxy/internal/testing/headless"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/scoring"
)

// load reads a folder or file as the commands do.
func load(t *testing.T, path string) (string, recorded.Run) {
	t.Helper()
	dir, loaded, err := cassettes.LoadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return dir, recorded.Build(dir, loaded)
}

// diffPage writes diff's page of two recorded runs.
func diffPage(t *testing.T, old, new string) func(*bytes.Buffer) error {
	t.Helper()
	_, oldRun := load(t, old)
	_, newRun := load(t, new)
	report := rundiff.Diff(old, new, oldRun, newRun, rundiff.Options{})
	return func(b *bytes.Buffer) error { return htmlreport.WriteDiff(b, report) }
}

// scorePage scores the recorded run against expected (an eval set or a
// golden run) with the default criteria, as score does, and writes its page.
func scorePage(t *testing.T, cassettesDir, expected string) (*scoring.Result, func(*bytes.Buffer) error) {
	t.Helper()
	dir, loaded, err := cassettes.LoadPath(cassettesDir)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := scoring.LoadExpected(expected)
	if err != nil {
		t.Fatal(err)
	}
	cases, unpaired := scoring.PairRuns(scoring.SessionsOf(loaded), exp, 1)
	result := scoring.Evaluate(context.Background(), scoring.DefaultConfig(), cases)
	if result.EvalSetID == "" {
		result.EvalSetID = exp.EvalSetID
	}
	result.Unpaired = append(result.Unpaired, unpaired...)
	return result, func(b *bytes.Buffer) error { return htmlreport.WriteScores(b, result, recorded.Build(dir, loaded)) }
}

func rendered(t *testing.T, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func writePage(t *testing.T, path string, write func(*bytes.Buffer) error) {
	t.Helper()
	if err := os.WriteFile(path, []byte(rendered(t, write)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startChromium starts Debian's chromium, or skips when it is missing
// outside CI (.ci/run installs it).
func startChromium(t *testing.T) *headless.Browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if testutil.InCI() {
			t.Fatal("chromium is not installed (.ci/run installs it)")
		}
		t.Skip("chromium is not installed; apt-get install chromium")
	}
	b, err := headless.Start(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// The diff page of the three-change scenario, in a real browser at a
// desktop's and a phone's width: the DOM holds exactly the three changes,
// highlighted on the timelines; nothing is fetched; the console stays
// clean; screenshots go to the test's output folder.
func TestDiffPageInChromium(t *testing.T) {
	t.Parallel()
	b := startChromium(t)
	old := agentscenario.Record(t, "old", agentscenario.Weather())
	new := agentscenario.Record(t, "new", agentscenario.RefactoredWeather())
	out := testutil.OutDir(t)
	page := filepath.Join(out, "diff.html")
	writePage(t, page, diffPage(t, old, new))
	for _, width := range []int{1280, 400} {
		if err := b.Open(page, width, 900); err != nil {
			t.Fatal(err)
		}
		var dom struct {
			Kinds    []string
			Texts    []string
			Added    []string
			Changed  []string
			Open     []string
			Summary  string
			Overflow bool
			SideTops []float64
		}
		err := b.Eval(`(() => {
			const all = s => [...document.querySelectorAll(s)];
			const sides = all('details[open] .side').map(e => e.getBoundingClientRect().top);
			return {
				kinds: all('[data-kind]').map(e => e.dataset.kind),
				texts: all('[data-kind]').map(e => e.textContent),
				added: all('.side .call.added').map(e => e.textContent),
				changed: all('.side .call.args_changed').map(e => e.textContent),
				open: all('details[open] > summary').map(e => e.textContent),
				summary: document.getElementById('summary').textContent,
				overflow: document.documentElement.scrollWidth > window.innerWidth,
				sideTops: sides,
			};
		})()`, &dom)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(dom.Kinds, ",") != "args_changed,tool_added,response_changed" {
			t.Errorf("%dpx: changes %v", width, dom.Kinds)
		}
		for i, want := range []string{`units: "celsius" → "fahrenheit"`, `get_time(city="Paris")`, "ROUGE-1 F"} {
			if i < len(dom.Texts) && !strings.Contains(dom.Texts[i], want) {
				t.Errorf("%dpx: change %d reads %q, want %q in it", width, i, dom.Texts[i], want)
			}
		}
		if len(dom.Added) != 1 || !strings.Contains(dom.Added[0], "get_time") || len(dom.Changed) != 2 {
			t.Errorf("%dpx: highlighted calls: added %v, changed (old and new side) %v", width, dom.Added, dom.Changed)
		}
		if len(dom.Open) != 1 || !strings.Contains(dom.Open[0], "What is the weather in Paris?") {
			t.Errorf("%dpx: open invocations %v, want the changed one only", width, dom.Open)
		}
		if !strings.Contains(dom.Summary, "1 changed (1 tool added, 1 argument changed, 1 response changed)") {
			t.Errorf("%dpx: summary %q", width, dom.Summary)
		}
		if dom.Overflow {
			t.Errorf("%dpx: the page is wider than the window", width)
		}
		if len(dom.SideTops) != 2 || (width == 1280) != (dom.SideTops[0] == dom.SideTops[1]) {
			t.Errorf("%dpx: timelines at %v: side by side on a desktop, stacked on a phone", width, dom.SideTops)
		}
		shot := filepath.Join(out, "diff-"+map[int]string{1280: "desktop", 400: "phone"}[width]+".png")
		if err := b.Screenshot(shot); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(shot); err != nil || info.Size() < 1000 {
			t.Errorf("screenshot %s: %v", shot, err)
		}
	}
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
	for _, u := range b.Requests() {
		if !strings.HasPrefix(u, "file://") {
			t.Errorf("the page fetched %s", u)
		}
	}
}

// ls --format html renders one run with the same page: every invocation
// a timeline, no console error.
func TestLsPageInChromium(t *testing.T) {
	t.Parallel()
	b := startChromium(t)
	page := filepath.Join(testutil.OutDir(t), "ls.html")
	dir, run := load(t, filepath.Join(testutil.RepoRoot(), "examples", "weather", "cassettes"))
	writePage(t, page, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, dir, run) })
	if err := b.Open(page, 1280, 900); err != nil {
		t.Fatal(err)
	}
	var dom struct {
		Invocations int
		Calls       []string
		Answers     []string
	}
	if err := b.Eval(`(() => ({
		invocations: document.querySelectorAll('details.invocation').length,
		calls: [...document.querySelectorAll('.call')].map(e => e.textContent),
		answers: [...document.querySelectorAll('.answer.final')].map(e => e.textContent),
	}))()`, &dom); err != nil {
		t.Fatal(err)
	}
	if dom.Invocations != 2 || strings.Join(dom.Calls, "|") != `→ get_weather(city="Paris")|→ get_weather(city="Tokyo")` ||
		len(dom.Answers) != 2 || dom.Answers[0] != "It is 18°C in Paris, clear." {
		t.Errorf("ls page: %+v", dom)
	}
	b.Screenshot(filepath.Join(filepath.Dir(page), "ls-desktop.png"))
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// score --format html puts each invocation's verdicts and reasons beside
// the recorded trajectory and the expected one (here a golden run's).
func TestScorePageInChromium(t *testing.T) {
	t.Parallel()
	b := startChromium(t)
	golden := agentscenario.Record(t, "golden", agentscenario.Weather())
	new := agentscenario.Record(t, "new", agentscenario.RefactoredWeather())
	page := filepath.Join(testutil.OutDir(t), "score.html")
	result, write := scorePage(t, new, golden)
	if !strings.HasPrefix(scoring.Summary(result), "FAILED") {
		t.Fatalf("%s, want FAILED (a tool call was added)", scoring.Summary(result))
	}
	writePage(t, page, write)
	if err := b.Open(page, 1280, 900); err != nil {
		t.Fatal(err)
	}
	var dom struct {
		Open     []string
		Verdicts []string
		Sides    []string
		Expected []string
	}
	if err := b.Eval(`(() => {
		const all = s => [...document.querySelectorAll(s)];
		return {
			open: all('details[open] > summary').map(e => e.textContent),
			verdicts: all('details[open] li.change').map(e => e.className + ': ' + e.textContent),
			sides: all('details[open] .side h3').map(e => e.textContent),
			expected: all('details[open] .side:nth-child(2) .call').map(e => e.textContent),
		};
	})()`, &dom); err != nil {
		t.Fatal(err)
	}
	if len(dom.Open) != 1 || !strings.Contains(dom.Open[0], "What is the weather in Paris?") || !strings.Contains(dom.Open[0], "failed") {
		t.Errorf("open invocations %v, want the failed one", dom.Open)
	}
	if len(dom.Verdicts) != 2 || !strings.Contains(dom.Verdicts[0], "tool_trajectory_avg_score failed") ||
		!strings.Contains(dom.Verdicts[0], `expected 1 tool call [get_weather(city="Paris", units="celsius")]`) ||
		!strings.Contains(dom.Verdicts[1], "response_match_score passed") {
		t.Errorf("verdicts %q", dom.Verdicts)
	}
	if strings.Join(dom.Sides, ",") != "recorded,expected" || len(dom.Expected) != 1 || !strings.Contains(dom.Expected[0], `units="celsius"`) {
		t.Errorf("sides %v, expected calls %v", dom.Sides, dom.Expected)
	}
	b.Screenshot(filepath.Join(filepath.Dir(page), "score-desktop.png"))
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// The HTML pages say things in words: a diff counts an agent's changed
// declaration once however many invocations resend it, and calls it a
// declaration, not tools_changed; the score page says how an invocation's
// FAILED and its case's PASSED go together.
func TestHTMLPagesSayItInWords(t *testing.T) {
	t.Parallel()
	old := agentscenario.Record(t, "old", agentscenario.Trip())
	new := agentscenario.Record(t, "new", agentscenario.RefactoredTrip())
	html := []byte(rendered(t, diffPage(t, old, new)))
	if !strings.Contains(string(html), `<span data-count="tools_changed">1 declaration changed</span>`) {
		t.Errorf("the declaration count is not one, in words:\n%s", regexp.MustCompile(`<span data-count[^<]*</span>`).FindAll(html, -1))
	}
	visible := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(string(html), " ")
	if strings.Contains(visible, "tools_changed") || !strings.Contains(visible, "declaration changed") {
		t.Errorf("the page shows the kind's identifier, not words")
	}

	// The golden run exported as an eval set, as export writes it.
	_, loaded, err := cassettes.LoadPath(old)
	if err != nil {
		t.Fatal(err)
	}
	var set bytes.Buffer
	if err := scoring.WriteEvalSet(&set, "golden", scoring.SessionsOf(loaded)); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(t.TempDir(), "golden.evalset.json")
	os.WriteFile(golden, set.Bytes(), 0o644)
	_, write := scorePage(t, new, golden)
	if html := rendered(t, write); !strings.Contains(html, "the mean of its invocations&#39; scores") || !strings.Contains(html, "decides nothing by itself") {
		t.Errorf("the score page does not spell out the rule")
	}
}
