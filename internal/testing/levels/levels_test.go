// The levels of the product module, read from the folders, and the test
// that every import points down them.

package levels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

const module = "github.com/adkproxy/adkproxy"

// level is a package's height: it may import its own level and the ones
// below. testOnly is test support, which may import anything and which no
// shipped package may import.
type level int

const (
	base level = iota
	cassettes
	wire
	matcher
	data
	engine // proxy, scoring and internal/engine
	feature
	top      // adkproxytest, cmd and the examples
	testOnly // internal/testing and the e2e tests
)

var levelNames = [...]string{"base", "cassettes", "wire", "matcher", "data", "engine", "feature", "top", "test support"}

func (l level) String() string { return levelNames[l] }

// folders gives each folder of the module its level; a package is in the
// level of the longest folder that holds it. docs/development.md's table of
// levels says the same.
var folders = map[string]level{
	"internal/base":    base,
	"cassettes":        cassettes,
	"internal/wire":    wire,
	"matcher":          matcher,
	"internal/data":    data,
	"proxy":            engine,
	"scoring":          engine,
	"internal/engine":  engine,
	"internal/feature": feature,
	"adkproxytest":     top,
	"cmd":              top,
	"examples":         top,
	"internal/testing": testOnly,
	"e2e":              testOnly,
}

// levelOf is the level of the package at rel (a path inside the module).
func levelOf(rel string) (level, bool) {
	best, found := "", false
	for f := range folders {
		if (rel == f || strings.HasPrefix(rel, f+"/")) && len(f) >= len(best) {
			best, found = f, true
		}
	}
	return folders[best], found
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string // of its non-test files
	Deps       []string // everything they import, transitively
}

// listModule runs go list over every package of the product module (other
// modules under its folder, such as bench/, are not in ./...).
func listModule(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = testutil.RepoRoot()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list found only %d packages: is it reading the module?", len(pkgs))
	}
	return pkgs
}

// ours is the path of p inside the module, if it is in it.
func ours(p string) (string, bool) {
	if p == module {
		return "", true
	}
	return strings.CutPrefix(p, module+"/")
}

// importProblems lists what is wrong with the imports of pkgs: an import
// of a higher level, of test support by a shipped package, or a package
// in no level.
func importProblems(pkgs []pkg) []string {
	var problems []string
	for _, p := range pkgs {
		rel, _ := ours(p.ImportPath)
		from, ok := levelOf(rel)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s sits in no level: put it in a folder of docs/development.md's table of levels", rel))
			continue
		}
		for _, imp := range p.Imports {
			irel, mine := ours(imp)
			if !mine {
				continue
			}
			to, ok := levelOf(irel)
			switch {
			case !ok:
				// Reported once, as a package of its own.
			case to == testOnly && from != testOnly:
				problems = append(problems, fmt.Sprintf("%s (%s) imports %s, which is test support: only tests and internal/testing may", rel, from, irel))
			case from != testOnly && to > from:
				problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s), a higher level: a package imports only its own level or below", rel, from, irel, to))
			}
		}
	}
	return problems
}

// TestImportsPointDown: every package of the product module sits in a
// level, imports only packages of its level or below, and ships without
// test support.
func TestImportsPointDown(t *testing.T) {
	pkgs := listModule(t)
	for _, problem := range importProblems(pkgs) {
		t.Error(problem)
	}

	// cassettes, the format, reads recorded bytes without the genai SDK
	// (and the 230 packages it brings).
	t.Run("CassettesWithoutGenai", func(t *testing.T) {
		for _, p := range pkgs {
			if p.ImportPath != module+"/cassettes" {
				continue
			}
			if i := slices.IndexFunc(p.Deps, func(d string) bool { return strings.HasPrefix(d, "google.golang.org/genai") }); i >= 0 {
				if !cassettesWithoutGenai {
					t.Skip("cassettes still reads trajectories with genai; enable once internal/wire holds that reading")
				}
				t.Errorf("cassettes depends on %s: the format reads recorded bytes without the SDK", p.Deps[i])
			}
			return
		}
		t.Fatal("go list did not list cassettes")
	})
}

// cassettesWithoutGenai turns on the CassettesWithoutGenai check.
const cassettesWithoutGenai = true

// TestImportProblemsFindsEach: the rule itself, on made-up packages, so a
// slip in it cannot pass every real import.
func TestImportProblemsFindsEach(t *testing.T) {
	m := func(rel string, imports ...string) pkg {
		p := pkg{ImportPath: module + "/" + rel}
		for _, i := range imports {
			p.Imports = append(p.Imports, module+"/"+i)
		}
		return p
	}
	cases := []struct {
		p    pkg
		want string // "" for none
	}{
		{m("proxy", "cassettes", "matcher", "internal/data/fault", "scoring", "internal/engine/fake"), ""},
		{m("cassettes", "internal/base/syncstat"), ""},
		{m("internal/base/textfmt", "proxy"), "internal/base/textfmt (base) imports proxy (engine), a higher level"},
		{m("matcher", "internal/data/conversation"), "matcher (matcher) imports internal/data/conversation (data), a higher level"},
		{m("scoring", "internal/feature/eval/judge"), "scoring (engine) imports internal/feature/eval/judge (feature), a higher level"},
		{m("internal/feature/report/runview", "adkproxytest"), "internal/feature/report/runview (feature) imports adkproxytest (top), a higher level"},
		{m("cmd/adkproxy", "internal/testing/testutil"), "cmd/adkproxy (top) imports internal/testing/testutil, which is test support"},
		{m("internal/testing/fakegemini", "cmd/adkproxy"), ""},
		{m("internal/stray"), "internal/stray sits in no level"},
		{m("cassettesx"), "cassettesx sits in no level"},
	}
	for _, c := range cases {
		got := importProblems([]pkg{c.p})
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s: %q, want no problem", c.p.ImportPath, got)
		case c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)):
			t.Errorf("%s: %q, want one starting %q", c.p.ImportPath, got, c.want)
		}
	}
}

// TestLevelTableDocumented: docs/development.md's table of levels names
// each folder of folders in the row of its level, and no other, so the
// table readers go by is the one this test enforces.
func TestLevelTableDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n## Levels\n")
	if !ok {
		t.Fatal("docs/development.md has no Levels section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	documented := map[string]string{} // folder -> level row
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "Level" {
			continue
		}
		for _, f := range backticked.FindAllStringSubmatch(cells[2], -1) {
			documented[strings.TrimSuffix(f[1], "/*")] = strings.TrimSpace(cells[1])
		}
	}
	for f, l := range folders {
		row, ok := documented[f]
		switch {
		case !ok:
			t.Errorf("%s (%s) is not in docs/development.md's table of levels", f, l)
		case row != l.String():
			t.Errorf("docs/development.md puts %s in the %q row; its level is %s", f, row, l)
		}
	}
	for f := range documented {
		if _, ok := folders[f]; !ok {
			t.Errorf("docs/development.md's table of levels names %s, which has no level here", f)
		}
	}
}

// backticked finds `code` spans.
var backticked = regexp.MustCompile("`([^`]+)`")
