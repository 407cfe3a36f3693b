package cassettes_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
)

// writeCassette writes a generated cassette (internal/testing/workload) to
// a file and returns its path and size.
func writeCassette(t testing.TB, write func(f *os.File) (int64, error)) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size, err := write(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path, size
}

// keptPerByte is what loading path leaves on the heap per byte of the file
// (HeapAlloc after a collection, before and after Load).
func keptPerByte(t *testing.T, path string, size int64) (float64, *cassettes.Cassette) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(size), c
}

// TestLoadingManySmallStepsKeepsLessThanTheFile is issue 39 item 12: a
// cassette of many small model calls (about 750 bytes a step on disk) is
// held in less memory than the file takes, so that with the garbage of
// loading beside it, peak memory stays within twice the file. It kept
// 1.8 times the file: each exchange's two header maps, of one header each,
// were about 400 bytes apiece; the exchanges of one cassette now share
// the maps of identical header sets. The many-steps row of `make bench`
// measures the peak RSS itself.
func TestLoadingManySmallStepsKeepsLessThanTheFile(t *testing.T) {
	path, size := writeCassette(t, func(f *os.File) (int64, error) { return workload.ManyStepsCassette(f, 5000) })
	kept, c := keptPerByte(t, path, size)
	if len(c.Exchanges) != 5000 {
		t.Fatalf("%d exchanges, want 5000", len(c.Exchanges))
	}
	if kept > 1 {
		t.Errorf("loading %d bytes of small steps kept %.2f bytes per byte of the file; want at most 1", size, kept)
	}
	first, last := c.Exchanges[0], c.Exchanges[4999]
	if first.Response.Header.Get("Content-Type") != workload.JSONContentType || last.Request.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers read wrong: %v, %v", first.Response.Header, last.Request.Header)
	}
	runtime.KeepAlive(c)
	t.Logf("%d bytes, %.2f kept per byte", size, kept)
}
