// Checks the relative links of README.md and docs/*.md: target files and heading anchors.

package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

var (
	fence      = regexp.MustCompile("(?m)^\\s*```")
	codeSpan   = regexp.MustCompile("`[^`\n]*`")
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	linkText   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

func TestRepositoryDocsLinksResolve(t *testing.T) {
	root := testutil.RepoRoot()
	files := []string{filepath.Join(root, "README.md")}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(docs) == 0 {
		t.Fatalf("no docs/*.md under %s", root)
	}
	files = append(files, docs...)
	for _, problem := range brokenLinks(root, files) {
		t.Error(problem)
	}
}

// TestBrokenLinksAreReported proves the checker finds each kind of dead end.
func TestBrokenLinksAreReported(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("docs/cli.md", "# CLI\n\n## `adkproxy replay`: flags\n\n## Exit statuses\n\n## Exit statuses\n")
	readme := write("README.md", strings.Join([]string{
		"# Tour",
		"[ok](docs/cli.md#adkproxy-replay-flags) [ok](docs/cli.md#exit-statuses-1) [ok](#tour) [web](https://example.com/x)",
		"[gone](docs/missing.md) [bad anchor](docs/cli.md#exit-status) [self](#nowhere) [outside](../shared/x.md)",
		"```",
		"[in a code block](docs/ignored.md)",
		"```",
		"`[in a code span](docs/ignored.md)`",
	}, "\n"))
	got := brokenLinks(root, []string{readme})
	want := []string{
		"README.md:3: docs/missing.md: no such file",
		"README.md:3: docs/cli.md#exit-status: docs/cli.md has no heading with that anchor",
		"README.md:3: #nowhere: README.md has no heading with that anchor",
		"README.md:3: ../shared/x.md: leads outside the repository",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("brokenLinks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// brokenLinks lists every relative link in files that leads nowhere, as
// "file:line: target: why", file relative to root.
func brokenLinks(root string, files []string) []string {
	var problems []string
	anchors := map[string]map[string]bool{}
	for _, file := range files {
		text, err := os.ReadFile(file)
		rel, _ := filepath.Rel(root, file)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		for i, line := range proseLines(string(text)) {
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if why := checkLink(root, file, target, anchors); why != "" {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", rel, i+1, target, why))
				}
			}
		}
	}
	return problems
}

func checkLink(root, from, target string, anchors map[string]map[string]bool) string {
	path, anchor, _ := strings.Cut(target, "#")
	dest := from
	if path != "" {
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
	}
	rel, err := filepath.Rel(root, dest)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "leads outside the repository"
	}
	if _, err := os.Stat(dest); err != nil {
		return "no such file"
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	if anchors[dest] == nil {
		text, err := os.ReadFile(dest)
		if err != nil {
			return err.Error()
		}
		anchors[dest] = headingAnchors(string(text))
	}
	if !anchors[dest][anchor] {
		return filepath.ToSlash(rel) + " has no heading with that anchor"
	}
	return ""
}

// proseLines returns the lines of a Markdown text with fenced code blocks
// blanked and code spans removed, so that only real links remain; line
// numbers are kept.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, line := range lines {
		if fence.MatchString(line) {
			inFence = !inFence
			lines[i] = ""
			continue
		}
		if inFence {
			lines[i] = ""
			continue
		}
		lines[i] = codeSpan.ReplaceAllString(line, "")
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a file's headings: lower
// case, punctuation dropped, spaces as "-", and "-1", "-2"… on repeats.
func headingAnchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	lines := strings.Split(text, "\n")
	inFence := false
	for _, line := range lines {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		title := linkText.ReplaceAllString(m[1], "$1")
		var slug strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
				slug.WriteRune(r)
			}
		}
		s := slug.String()
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}
