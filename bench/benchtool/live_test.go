package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLiveFigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gobench.txt")
	lines := `BenchmarkLiveReplay/via=direct/c=1-2    686   5709954 ns/op   44000 frames/s
BenchmarkLiveReplay/via=direct/c=16-2   340   6324795 ns/op   40000 frames/s
BenchmarkLiveReplay/via=proxy/c=1-2     550   3756868 ns/op   33000 frames/s
BenchmarkLiveReplay/via=proxy/c=16-2    264   9969820 ns/op   16000 frames/s
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	gb, err := readGoBench(path)
	if err != nil {
		t.Fatal(err)
	}
	floors, rows := liveFigures(gb)
	if len(rows) != 2 || rows[0].Ratio != 0.75 || rows[1].Ratio != 0.4 {
		t.Fatalf("rows %+v", rows)
	}
	if !floors[0].Met || floors[1].Met {
		t.Fatalf("floors %+v: want c=1 met (0.75×) and c=16 missed (0.4×)", floors)
	}
}
