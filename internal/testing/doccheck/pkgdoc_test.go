// Checks the package comments of every Go package in the repository.

package doccheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// goFileName is a Go source file named in prose ("replay.go").
var goFileName = regexp.MustCompile(`\b[\w-]+\.go\b`)

// TestPackageCommentsNameNoFile: what `go doc` shows first is what the
// package owns. A file's header comment written directly above its
// `package` clause joins the package comment, and a package comment that
// names files goes stale as files move; each package has exactly one
// package comment, which names no .go file.
func TestPackageCommentsNameNoFile(t *testing.T) {
	root := testutil.RepoRoot()
	docs := map[string][]string{} // package dir → files carrying a package comment
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return fs.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return fs.SkipDir // another module (bench, examples, e2e servers)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Doc == nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		docs[filepath.Dir(rel)] = append(docs[filepath.Dir(rel)], filepath.Base(rel))
		if names := goFileName.FindAllString(f.Doc.Text(), -1); len(names) > 0 {
			t.Errorf("%s: the package comment names %s; say what the package owns, not which file holds what", rel, strings.Join(names, ", "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(docs))
	for dir := range docs {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		if files := docs[dir]; len(files) > 1 {
			t.Errorf("%s: %d files carry a package comment (%s); keep it in one and leave a blank line between a file's header and its package clause",
				dir, len(files), strings.Join(files, ", "))
		}
	}
	if len(docs) < 20 {
		t.Errorf("found package comments in only %d packages: is the walk reading the repository?", len(docs))
	}
}
