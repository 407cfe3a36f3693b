package cassettes

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

func sampleCassette(name string) *Cassette {
	x := simpleExchange(goSDKRequest, geminiPretty)
	x.Request.Header = http.Header{"Content-Type": {"application/json"}}
	x.Response.Header = http.Header{"Content-Type": {"application/json; charset=UTF-8"}}
	return &Cassette{Name: name, Exchanges: []*Exchange{x}}
}

// listDir returns every file below dir, relative, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestSaveThenLoad(t *testing.T) {
	dir := t.TempDir()
	want := sampleCassette("suite/test")
	rel, err := FileName(want.Name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, rel)
	if err := Save(path, want, NewRedactor()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffCassettes(want, got); d != "" {
		t.Fatal(d)
	}
	if files := listDir(t, dir); len(files) != 1 || files[0] != "suite/test.yaml" {
		t.Errorf("files = %v, want just suite/test.yaml (no temp files)", files)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", info.Mode().Perm())
	}
}

func TestSaveWithoutRedactor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.yaml")
	if err := Save(path, sampleCassette("x"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
}

func TestSaveReplacesExistingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte(strings.Repeat("old content that is longer than the new one\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Cassette{Name: "c", Exchanges: []*Exchange{simpleExchange("a", "b")}}
	if err := Save(path, c, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Marshal(c)
	if !bytes.Equal(data, want) {
		t.Fatalf("file holds\n%s\nwant\n%s", data, want)
	}
	if files := listDir(t, dir); len(files) != 1 {
		t.Errorf("files = %v", files)
	}
}

func TestSaveRefusingASecretKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := Save(path, sampleCassette("c"), nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)

	const secret = "AIzaSyA-very-secret-key-1234567890"
	r := NewRedactor()
	r.Learn(http.Header{"X-Goog-Api-Key": {secret}}, "")
	leaky := simpleExchange(`{"echo":"`+secret+`"}`, "ok")
	err := Save(path, &Cassette{Name: "c", Exchanges: []*Exchange{leaky}}, r)
	if !errors.Is(err, ErrSecretLeak) {
		t.Fatalf("err = %v, want ErrSecretLeak", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the error shows the secret: %v", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "X-Goog-Api-Key") {
		t.Errorf("the error does not name the file and the carrier: %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("the previous file changed")
	}
	if files := listDir(t, dir); len(files) != 1 {
		t.Errorf("files = %v, want only the old cassette", files)
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	// The parent "folder" is a file: nothing can be written below it.
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Save(filepath.Join(blocker, "c.yaml"), sampleCassette("c"), nil); !errors.Is(err, ErrWrite) {
		t.Errorf("err = %v, want ErrWrite", err)
	}
	// Something Marshal refuses.
	if err := Save(filepath.Join(dir, "bad.yaml"), &Cassette{Name: "\xff"}, nil); !errors.Is(err, ErrWrite) {
		t.Errorf("err = %v, want ErrWrite", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.yaml")); !os.IsNotExist(err) {
		t.Errorf("a refused cassette was written: %v", err)
	}
	// The target is a folder: the rename fails and the temp file goes.
	target := filepath.Join(dir, "folder.yaml")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Save(target, sampleCassette("c"), nil); !errors.Is(err, ErrWrite) {
		t.Errorf("err = %v, want ErrWrite", err)
	}
	for _, f := range listDir(t, dir) {
		if strings.Contains(f, ".tmp-") {
			t.Errorf("temp file %s left behind", f)
		}
	}
}

func TestConcurrentSavesLeaveOneWholeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := &Cassette{Name: "c", Exchanges: []*Exchange{simpleExchange(strings.Repeat(fmt.Sprint(i), 10000), "x")}}
			if err := Save(path, c, nil); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	body := string(c.Exchanges[0].Request.Body)
	if len(body) != 10000 || strings.Count(body, body[:1]) != 10000 {
		t.Fatal("the file mixes two saves")
	}
	if files := listDir(t, dir); len(files) != 1 {
		t.Errorf("files = %v", files)
	}
}

func TestLoadErrorsOnDisk(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a folder: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nbogus: 2\n"), 0o644)
	_, err := Load(bad)
	if !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), bad+":2: ") {
		t.Errorf("bad file: %v", err)
	}
	newer := filepath.Join(dir, "newer.yaml")
	os.WriteFile(newer, []byte("version: 7\n"), 0o644)
	if _, err := Load(newer); !errors.Is(err, ErrVersion) || !strings.HasPrefix(err.Error(), newer+":1: ") {
		t.Errorf("newer file: %v", err)
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	save := func(rel string, c *Cassette) {
		t.Helper()
		if err := Save(filepath.Join(dir, filepath.FromSlash(rel)), c, nil); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save("default.yaml", sampleCassette(DefaultName))
	save("suite/test.yaml", sampleCassette("suite/test"))
	save("TestX/case_one-1234abcd.yaml", sampleCassette("TestX/case one"))
	save("deep/a/b/c.yaml", sampleCassette("")) // no name: the path is the key
	write("noname.yaml", "version: 1\n")
	write(".c.yaml.tmp-123", "half a file")        // an unfinished Save
	write("sub/.x.yaml.tmp-456", "half")           // another, nested
	write(".hidden.yaml", "not: a cassette\n")     // hidden files are skipped
	write(".git/config.yaml", "not: a cassette\n") // hidden folders too
	write("README.md", "# cassettes\n")            // other files are ignored
	write("notes.yml", "not: a cassette\n")        // only .yaml counts
	write("sub/data.json", "{}")

	got, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{"TestX/case one", "deep/a/b/c", DefaultName, "noname", "suite/test"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("names = %q, want %q", names, want)
	}
	for name, c := range got {
		if c.Name != name {
			t.Errorf("key %q holds cassette %q", name, c.Name)
		}
	}
	if d := diffCassettes(sampleCassette("suite/test"), got["suite/test"]); d != "" {
		t.Error(d)
	}
}

func TestLoadDirDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "sub", "b.yaml")
	for _, p := range []string{a, b} {
		if err := Save(p, sampleCassette("same"), nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadDir(dir)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), `"same"`) {
		t.Errorf("the error does not name both files and the name: %v", err)
	}

	// A nameless file whose path equals another cassette's name clashes too.
	dir = t.TempDir()
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "y.yaml"), []byte("version: 1\n"), 0o644)
	Save(filepath.Join(dir, "other.yaml"), sampleCassette("x/y"), nil)
	if _, err := LoadDir(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("err = %v, want ErrCorrupt", err)
	}
}

func TestLoadDirErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadDir(filepath.Join(dir, "missing"))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing folder: %v", err)
	}
	// The library says what is wrong; the CLI adds which command to run.
	var missing *MissingFolderError
	if !errors.As(err, &missing) || missing.Dir != filepath.Join(dir, "missing") || strings.Contains(err.Error(), "adkproxy record") {
		t.Errorf("missing folder: want a MissingFolderError naming the folder and no CLI command: %v", err)
	}
	file := filepath.Join(dir, "file.yaml")
	os.WriteFile(file, []byte("version: 1\n"), 0o644)
	if _, err := LoadDir(file); !errors.Is(err, ErrNotFound) {
		t.Errorf("a file, not a folder: %v", err)
	}
	bad := filepath.Join(dir, "sub", "bad.yaml")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("version: 1\nname: [\n"), 0o644)
	_, err = LoadDir(dir)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), bad) {
		t.Errorf("a corrupt file: %v", err)
	}
	os.WriteFile(bad, []byte("version: 3\n"), 0o644)
	if _, err = LoadDir(dir); !errors.Is(err, ErrVersion) {
		t.Errorf("a newer file: %v", err)
	}
}

func TestLoadDirEmpty(t *testing.T) {
	got, err := LoadDir(t.TempDir())
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "folder", "f.yaml")
	if err := WriteFileAtomic(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "two" {
		t.Fatalf("data = %q", data)
	}
	if files := listDir(t, dir); len(files) != 1 {
		t.Errorf("files = %v", files)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "empty.yaml"), nil); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "empty.yaml")); err != nil || info.Size() != 0 {
		t.Errorf("empty file: %v %v", info, err)
	}
}
