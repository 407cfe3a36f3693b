// The journal's append and sync, with and without the prewritten tail.

package journalfile

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"
)

// BenchmarkFileAppend appends and syncs one record of 12 KB (about what a
// 4 KB-each-way exchange's JSON takes, its bodies in base64) over the
// prewritten tail.
func BenchmarkFileAppend(b *testing.B) { benchFileAppend(b, true) }

// BenchmarkFileAppendGrowingFile is the same without the prewritten tail:
// every record grows the file, so every sync commits its new size too. The
// difference is what the tail saves (prewrite.go).
func BenchmarkFileAppendGrowingFile(b *testing.B) { benchFileAppend(b, false) }

func benchFileAppend(b *testing.B, tail bool) {
	payload := bytes.Repeat([]byte(`{"Body":"QUJD"}`), 800)
	j, err := Open(filepath.Join(b.TempDir(), "bench.yaml"), "bench", true)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Remove()
	if !tail { // as journals were: the file ends where the records do
		j.ready = math.MaxInt64
		if err := j.f.Truncate(j.end); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := j.Append(payload); err != nil {
			b.Fatal(err)
		}
	}
}
