package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The HTML pages say things in words: a diff counts an agent's changed
// declaration once however many invocations resend it, and calls it a
// declaration, not tools_changed; the score page says how an invocation's
// FAILED and its case's PASSED go together.
func TestHTMLPagesSayItInWords(t *testing.T) {
	t.Parallel()
	old := recordScenario(t, "old", tripScenario())
	new := recordScenario(t, "new", refactoredTrip())
	page := filepath.Join(t.TempDir(), "diff.html")
	if r := adkproxy(t, nil, "diff", old, new, "--format", "html", "--out", page); r.code != 0 {
		t.Fatalf("diff: exit %d\n%s", r.code, r.stderr)
	}
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), `<span data-count="tools_changed">1 declaration changed</span>`) {
		t.Errorf("the declaration count is not one, in words:\n%s", regexp.MustCompile(`<span data-count[^<]*</span>`).FindAll(html, -1))
	}
	visible := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(string(html), " ")
	if strings.Contains(visible, "tools_changed") || !strings.Contains(visible, "declaration changed") {
		t.Errorf("the page shows the kind's identifier, not words")
	}

	golden := filepath.Join(t.TempDir(), "golden.evalset.json")
	if r := adkproxy(t, nil, "export", old, "--out", golden); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	scores := filepath.Join(t.TempDir(), "score.html")
	adkproxy(t, nil, "score", new, "--expected", golden, "--format", "html", "--out", scores)
	if html, _ := os.ReadFile(scores); !strings.Contains(string(html), "the mean of its invocations&#39; scores") || !strings.Contains(string(html), "decides nothing by itself") {
		t.Errorf("the score page does not spell out the rule")
	}
}
