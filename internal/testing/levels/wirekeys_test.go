// Gemini's wire keys only in internal/wire: model and tool traffic is read
// (and its Gemini shape written) there, and nowhere else.

package levels

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// wireKeys are the keys of Gemini's tool traffic in generateContent and
// Live: a package that spells one reads or writes that wire itself.
var wireKeys = []string{"functionCall", "functionResponse", "functionDeclarations", "functionCalls", "functionResponses"}

// wireKeyHomes may spell them: the reader of the wire, and the scripted
// Gemini API (internal/engine/fake), which is the wire's other end. Test
// support and tests are not product code.
var wireKeyHomes = []string{"internal/wire", "internal/engine/fake", "internal/testing", "e2e", "examples"}

// wireKeyFiles may spell them for a reason of their own, given here.
var wireKeyFiles = map[string]string{
	// ADK's session events (an ADK API server's /sessions documents and
	// the conformance corpus's YAML) are ADK's storage format, compared
	// as documents; no recorded exchange is read there.
	"internal/data/conformance/compare.go": "ADK's session format",
}

// wireKeyUses lists where the Go source src (the file rel) spells a wire
// key in a string: the key alone, or quoted inside JSON text.
func wireKeyUses(t *testing.T, rel string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", rel, err)
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, k := range wireKeys {
			if s == k || strings.Contains(s, `"`+k+`"`) {
				uses = append(uses, fset.Position(lit.Pos()).String()+": "+k)
				break
			}
		}
		return true
	})
	return uses
}

// TestWireKeysOnlyInWire: no shipped package outside wireKeyHomes spells
// Gemini's tool keys in its code (tests aside), but the files of
// wireKeyFiles; one that does reads the wire past internal/wire.
func TestWireKeysOnlyInWire(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles", "./...")
	cmd.Dir = testutil.RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files := 0
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			ImportPath, Dir string
			GoFiles         []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel, _ := ours(p.ImportPath)
		if slices.ContainsFunc(wireKeyHomes, func(h string) bool { return rel == h || strings.HasPrefix(rel, h+"/") }) {
			continue
		}
		for _, name := range p.GoFiles {
			file := filepath.ToSlash(filepath.Join(rel, name))
			if _, ok := wireKeyFiles[file]; ok {
				continue
			}
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, use := range wireKeyUses(t, file, src) {
				t.Errorf("%s spells a Gemini wire key: read model and tool traffic through internal/wire (or give the file's reason in wireKeyFiles)", use)
			}
		}
	}
	if files < 200 {
		t.Fatalf("only %d files read: is the walk reading the module?", files)
	}
}

// TestWireKeyUsesFindsEach: the rule itself, on made-up source.
func TestWireKeyUsesFindsEach(t *testing.T) {
	src := []byte("package p\n" +
		"// functionCall in a comment is prose\n" +
		"var a = m[\"functionCall\"]\n" +
		"var b = `{\"functionResponses\":[]}`\n" +
		"var c = \"functionCalls are counted\"\n" +
		"var d = \"function_call\"\n")
	got := wireKeyUses(t, "p.go", src)
	if len(got) != 2 || !strings.HasSuffix(got[0], "functionCall") || !strings.HasSuffix(got[1], "functionResponses") {
		t.Fatalf("found %q; want the lookup and the JSON text", got)
	}
}
