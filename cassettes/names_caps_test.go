package cassettes

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamesAreCapped: a name over maxNameBytes, or one whose path would
// pass maxPathBytes, is refused, and the error neither echoes it in full
// nor hides its length.
func TestNamesAreCapped(t *testing.T) {
	if _, err := FileName(strings.Repeat("a", maxNameBytes)); err != nil {
		t.Errorf("a name of exactly the cap: %v", err)
	}
	long := strings.Repeat("é", maxNameBytes) // 2 bytes each
	_, err := FileName(long)
	if !errors.Is(err, ErrUnsafeName) || !strings.Contains(err.Error(), "(2048 bytes)") || len(err.Error()) > 200 {
		t.Errorf("over the cap: %v", err)
	}
	dir := strings.Repeat("d", maxPathBytes-len("/x.yaml")-tmpOverhead)
	if _, err := PathFor(dir, "x"); err != nil {
		t.Errorf("a path of exactly the cap: %v", err)
	}
	if _, err := PathFor(dir, "xy"); !errors.Is(err, ErrUnsafeName) || !strings.Contains(err.Error(), "shorter") {
		t.Errorf("one byte over the path cap: %v", err)
	}
	if p, _ := PathFor("cas", "suite/x"); p != filepath.Join("cas", "suite", "x.yaml") {
		t.Errorf("PathFor = %q", p)
	}
}

func TestShortName(t *testing.T) {
	if got := ShortName("suite/x"); got != `"suite/x"` {
		t.Errorf("short name changed: %s", got)
	}
	got := ShortName(strings.Repeat("a", 63) + strings.Repeat("ü", 10))
	if !strings.HasPrefix(got, `"`+strings.Repeat("a", 63)+`"…`) || !strings.HasSuffix(got, "(83 bytes)") {
		t.Errorf("got %s: want cut before the half rune, with the length", got)
	}
}
