package testutil

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// The CLI is built once per test binary: every caller gets the same file,
// not rebuilt.
func TestBuildAdkproxyOnce(t *testing.T) {
	first := BuildAdkproxy(t)
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	var second string
	t.Run("another test", func(t *testing.T) { second = BuildAdkproxy(t) })
	after, err := os.Stat(second)
	if err != nil {
		t.Fatal(err)
	}
	if second != first || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("built twice: %s (%v), then %s (%v)", first, before.ModTime(), second, after.ModTime())
	}
}
