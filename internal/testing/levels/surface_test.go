// The public packages' exported names, counted and held to a budget.

package levels

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// publicPackages are the packages users import; everything else is
// internal/ or a command.
var publicPackages = []string{"proxy", "cassettes", "matcher", "scoring", "adkproxytest"}

// surfaceBudget is the most exported names the public packages may have
// together: 298 at the regroup by level, 305 when the budget was set, 303 a
// little later (the
// recording lock and trajectory reading had left cassettes; Config.Hints,
// the summary's lines, the failed-save paths, --no-code's config fields,
// the stdio scheme and the matcher's body and tool readers had come), 297
// once side files moved to internal/base/sidefile, 287 once the journal
// moved to internal/base/journalfile and internal/engine/journal
// (Redactor.ScanStream came, for its large records), 286 once
// matcher.CamelFrame went to internal/wire with the Live steps, 288 with
// cassettes.Provenance (issue 42: a cassette says how it was recorded; one
// struct type, its parts fields) and proxy.ModeRecordRefresh (issue 42:
// record --mode refresh, a mode as the others are).
// Lower it when names go (a name that leaves the API is a name users no
// longer have to learn), and raise it only in a change that says which
// names it adds and why.
const surfaceBudget = 288

// exportedNames lists the exported names of the package in dir, as go doc
// shows them: every func, type, method, const and var ("Type.Method" for a
// method). Struct fields and interface methods are part of their type.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	bp, err := build.ImportDir(dir, 0) // the files this platform builds, tests aside
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, module+"/"+filepath.Base(dir))
	if err != nil {
		t.Fatalf("reading %s's documentation: %v", dir, err)
	}
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			names = append(names, v.Names...)
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		names = append(names, f.Name)
	}
	for _, typ := range p.Types {
		names = append(names, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		for _, f := range typ.Funcs {
			names = append(names, f.Name)
		}
		for _, m := range typ.Methods {
			names = append(names, typ.Name+"."+m.Name)
		}
	}
	sort.Strings(names)
	return names
}

// TestExportedNamesWithinBudget: the public packages do not grow past
// surfaceBudget names. The log lists each package's count, and -v every
// name, to see what a change added.
func TestExportedNamesWithinBudget(t *testing.T) {
	root := testutil.RepoRoot()
	total := 0
	for _, pkg := range publicPackages {
		names := exportedNames(t, filepath.Join(root, pkg))
		if len(names) == 0 {
			t.Errorf("%s exports nothing: is the walk reading the package?", pkg)
		}
		t.Logf("%s: %d exported names", pkg, len(names))
		if testing.Verbose() {
			t.Logf("  %s", strings.Join(names, " "))
		}
		total += len(names)
	}
	t.Logf("total: %d (budget %d)", total, surfaceBudget)
	if total > surfaceBudget {
		t.Errorf("the public packages export %d names, over the budget of %d: move what only adkproxy's own programs use into internal/, or say in the change why the API grows and raise surfaceBudget",
			total, surfaceBudget)
	}
}
