package cassettes

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSave writes a 200-exchange realistic cassette, in sessions as a
// recording files them, the way the
// proxy does at exit: render, scan for secrets, temporary file, fsync,
// rename, fsync of the folder. (BenchmarkMarshal is the rendering alone.)
func BenchmarkSave(b *testing.B) {
	c := placedCassette(200)
	data, err := Marshal(c)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "bench.yaml")
	r := NewRedactor()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Save(path, c, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad reads that cassette back from disk, as replay does at
// start-up for each file. (BenchmarkUnmarshal is the parsing alone.)
func BenchmarkLoad(b *testing.B) {
	c := placedCassette(200)
	path := filepath.Join(b.TempDir(), "bench.yaml")
	if err := Save(path, c, nil); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}
