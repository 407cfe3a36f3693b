package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

func TestLoadingGCPacesByTwiceTheCassettesAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	for _, name := range []string{"a.yaml", "sub/b.yaml", "notes.txt", ".git/c.yaml"} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, make([]byte, 40<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	percent, limit := gcSettings()
	restore := loadingGC(dir)
	gotPercent, gotLimit := gcSettings()
	restore()
	if gotPercent != -1 || gotLimit != 2*80<<20 {
		t.Errorf("while loading: GC percent %d, limit %d; want -1 and %d (twice the two cassettes; hidden folders are not read)", gotPercent, gotLimit, 2*80<<20)
	}
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("after loading: GC percent %d, limit %d; want them back at %d, %d", p, l, percent, limit)
	}

	restore = loadingGC(filepath.Join(dir, "sub/b.yaml")) // ls and score take one cassette file too
	if _, l := gcSettings(); l != 2*40<<20 {
		t.Errorf("one cassette file: limit %d, want %d (twice the file)", l, 2*40<<20)
	}
	restore()

	restore = loadingGC(t.TempDir())
	if _, l := gcSettings(); l != 64<<20 {
		t.Errorf("empty folder: limit %d, want the 64 MiB floor", l)
	}
	restore()
}

func TestLoadingGCLeavesUserSettingsAlone(t *testing.T) {
	t.Setenv("GOGC", "150")
	percent, limit := gcSettings()
	restore := loadingGC(t.TempDir())
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("GOGC set: settings changed to %d, %d", p, l)
	}
	restore()
}
