package cassettes

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestFileNameKeepsSafeNames(t *testing.T) {
	tests := map[string]string{
		DefaultName:         "default.yaml",
		"suite/test":        filepath.Join("suite", "test.yaml"),
		"TestX":             "TestX.yaml",
		"a-b_c.d":           "a-b_c.d.yaml",
		"v1.2/x":            filepath.Join("v1.2", "x.yaml"),
		"deep/er/and/deep":  filepath.Join("deep", "er", "and", "deep.yaml"),
		"UPPER/lower/123":   filepath.Join("UPPER", "lower", "123.yaml"),
		"name.yaml":         "name.yaml.yaml",
		"a_b":               "a_b.yaml",
		"-leading-dash":     "-leading-dash.yaml",
		"trailing_dash-":    "trailing_dash-.yaml",
		"x.y.z/TestA/sub_1": filepath.Join("x.y.z", "TestA", "sub_1.yaml"),
	}
	for name, want := range tests {
		got, err := FileName(name)
		if err != nil || got != want {
			t.Errorf("FileName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}

var hashed = regexp.MustCompile(`-[0-9a-f]{8}$`)

func TestFileNameSanitises(t *testing.T) {
	got, err := FileName("TestX/case one")
	if err != nil {
		t.Fatal(err)
	}
	dir, file := filepath.Split(got)
	if dir != "TestX"+string(filepath.Separator) {
		t.Errorf("folder = %q, want TestX/", dir)
	}
	base := strings.TrimSuffix(file, Extension)
	if !strings.HasPrefix(base, "case_one-") || !hashed.MatchString(base) {
		t.Errorf("file = %q, want case_one-<hash>.yaml", file)
	}
	again, _ := FileName("TestX/case one")
	if again != got {
		t.Errorf("FileName is not stable: %q then %q", got, again)
	}
}

func TestFileNameDistinctNamesDistinctFiles(t *testing.T) {
	names := []string{
		"a b", "a:b", "a_b", "a*b", "a?b", `a\b`, "a|b", "a\"b", "a<b", "a>b", "a\x00b", "a\nb", "aéb", "a😀b",
		"a..b", "a._b", "a_.b", "a...b", ".a", "_a", "a.", "a_", "..a", "a..", "...",
		"x/a b", "x/a_b", "x/a:b", "x y/a", "x_y/a",
		strings.Repeat("l", 300), strings.Repeat("l", 301), strings.Repeat("l", 100), strings.Repeat("l", 101),
		strings.Repeat("é", 150), strings.Repeat("è", 150),
	}
	seen := map[string]string{}
	for _, name := range names {
		got, err := FileName(name)
		if err != nil {
			t.Errorf("FileName(%q): %v", name, err)
			continue
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q both map to %q", name, other, got)
		}
		seen[got] = name
	}
}

func TestFileNameRejectsUnsafeNames(t *testing.T) {
	for _, name := range []string{
		"", "/abs", "/", "a//b", "a/", "/a/b", "a/../b", "..", ".", "a/./b", "./a", "../a", "a/..", "a/.",
		`\abs`, `\\server\share`,
	} {
		got, err := FileName(name)
		if !errors.Is(err, ErrUnsafeName) {
			t.Errorf("FileName(%q) = %q, %v; want ErrUnsafeName", name, got, err)
		}
	}
}

func TestFileNameLongSegments(t *testing.T) {
	long := strings.Repeat("s", 300)
	got, err := FileName("suite/" + long)
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(filepath.Base(got), Extension)
	if len(base) > maxSegment+9 || !strings.HasPrefix(base, strings.Repeat("s", maxSegment)) || !hashed.MatchString(base) {
		t.Errorf("long segment became %q (%d bytes)", base, len(base))
	}
	// Two long names sharing their first 100 bytes still differ.
	other, _ := FileName("suite/" + long + "x")
	if other == got {
		t.Error("two long names share a file")
	}
	// Multi-byte characters are replaced, never cut in half.
	got, _ = FileName(strings.Repeat("ü", 300))
	if !strings.HasPrefix(got, strings.Repeat("_", maxSegment)) {
		t.Errorf("got %q", got)
	}
}

func TestFileNameNeverHiddenOrDotDot(t *testing.T) {
	names := []string{
		".hidden", "..x", "...", "....", "a/.b", ".a/.b", "a..b", "a...b/c", "a.", "a./b", "x/y.", "a. .b",
		".yaml", "..yaml", "x/..hidden/y", ". .", ".\x00.", strings.Repeat(".", 150), strings.Repeat("a.", 60),
		strings.Repeat("x", 99) + "..y",
	}
	for _, name := range names {
		got, err := FileName(name)
		if err != nil {
			if !errors.Is(err, ErrUnsafeName) {
				t.Errorf("FileName(%q): %v", name, err)
			}
			continue
		}
		checkSafePath(t, name, got)
	}
}

func checkSafePath(t *testing.T, name, got string) {
	t.Helper()
	if strings.Contains(got, "..") {
		t.Errorf("FileName(%q) = %q contains ..", name, got)
	}
	if filepath.IsAbs(got) || !filepath.IsLocal(got) {
		t.Errorf("FileName(%q) = %q is not a local path", name, got)
	}
	if !strings.HasSuffix(got, Extension) {
		t.Errorf("FileName(%q) = %q lacks the extension", name, got)
	}
	for _, seg := range strings.Split(filepath.ToSlash(got), "/") {
		if seg == "" || strings.HasPrefix(seg, ".") {
			t.Errorf("FileName(%q) = %q has a hidden or empty segment %q", name, got, seg)
		}
		if len(seg) > maxSegment+9+len(Extension) {
			t.Errorf("FileName(%q) = %q has a %d-byte segment", name, got, len(seg))
		}
		if !regexp.MustCompile(`^[A-Za-z0-9._-]+$`).MatchString(seg) {
			t.Errorf("FileName(%q) = %q has unsafe characters in %q", name, got, seg)
		}
	}
}

func FuzzFileName(f *testing.F) {
	for _, s := range []string{"default", "suite/test", "TestX/case one", "a/../b", ".hidden", "a..b", "a.", `\x`, "/", "é/ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got, err := FileName(name)
		if err != nil {
			if !errors.Is(err, ErrUnsafeName) {
				t.Fatalf("FileName(%q): error %v is not ErrUnsafeName", name, err)
			}
			return
		}
		checkSafePath(t, name, got)
		if again, _ := FileName(name); again != got {
			t.Fatalf("not stable")
		}
	})
}
