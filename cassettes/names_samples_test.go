package cassettes

import (
	"path/filepath"
	"strings"
	"testing"
)

// Sample N of a cassette is the file NAME@N.yaml beside it; an "@" that
// ends no sample number is hashed as before, so old names keep their files.
func TestFileNameOfSamples(t *testing.T) {
	for name, want := range map[string]string{
		"weather@1":        "weather@1.yaml",
		"suite/TestX@12":   filepath.Join("suite", "TestX@12.yaml"),
		"default@5":        "default@5.yaml",
		"user@example.com": "",
		"weather@03":       "",
	} {
		got, err := FileName(name)
		if err != nil {
			t.Fatalf("FileName(%q): %v", name, err)
		}
		if want == "" {
			if strings.Contains(got, "@") || !hashed.MatchString(strings.TrimSuffix(got, Extension)) {
				t.Errorf("FileName(%q) = %q; want the old hashed name", name, got)
			}
			continue
		}
		if got != want {
			t.Errorf("FileName(%q) = %q; want %q", name, got, want)
		}
	}
	one, _ := FileName("case one@2")
	base, _ := FileName("case one")
	if one != strings.TrimSuffix(base, Extension)+"@2"+Extension {
		t.Errorf("sample of a hashed name: %q, want %q with @2", one, base)
	}
}
