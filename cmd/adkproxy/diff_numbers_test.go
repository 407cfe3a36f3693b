// The diff command on numeric changes: a changed number in a tool's
// arguments or result is a change like any other, in every format.

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
