package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the CLI may be: a command is
// flags, one package call and an exit status, and what does more belongs
// in a package (docs/development.md).
const maxFuncLines = 60

// TestFunctionsAreShort fails on any function of cmd/adkproxy, outside its
// tests, longer than maxFuncLines, counted from its func line to its
// closing brace (function literals are counted as part of the function
// around them, and on their own).
func TestFunctionsAreShort(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, long := range longFuncs(fset, f) {
			t.Errorf("%s: %s is %d lines; at most %d (move its logic into a package, or split it)", name, long.name, long.lines, maxFuncLines)
		}
	}
}

type funcLen struct {
	name  string
	lines int
}

func longFuncs(fset *token.FileSet, f *ast.File) []funcLen {
	var out []funcLen
	ast.Inspect(f, func(n ast.Node) bool {
		name := "a function literal"
		switch d := n.(type) {
		case *ast.FuncDecl:
			name = d.Name.Name
		case *ast.FuncLit:
		default:
			return true
		}
		if lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1; lines > maxFuncLines {
			out = append(out, funcLen{name, lines})
		}
		return true
	})
	return out
}

// TestLongFuncsCountsLines: the check sees a long function and passes a
// short one, so TestFunctionsAreShort cannot pass for want of looking.
func TestLongFuncsCountsLines(t *testing.T) {
	t.Parallel()
	src := "package p\nfunc short() {\n}\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines-1) + "}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := longFuncs(fset, f); len(got) != 1 || got[0].name != "long" || got[0].lines != maxFuncLines+1 {
		t.Errorf("longFuncs: %+v, want long at %d lines", got, maxFuncLines+1)
	}
}
