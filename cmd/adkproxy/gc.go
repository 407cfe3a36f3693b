// Pacing garbage collection by memory while replay loads its cassettes:
// it only tunes start-up time, so it stays out of the loading code.

package main

import (
	"os"
	"runtime/debug"

	"github.com/adkproxy/adkproxy/cassettes"
)

// loadingGC paces garbage collection by memory while replay loads its
// cassettes, and returns the function that restores the usual pacing.
// Loading grows the heap from nothing to about the cassettes' size, and
// the default pacing collects at every doubling of it: dozens of
// collections for a large folder, a fifth of start-up. With collection
// paced only by a limit of twice the YAML's size (at least 64 MiB), garbage
// builds up to that limit, no further, and is collected a few times.
// GOGC or GOMEMLIMIT set by the user are left alone.
func loadingGC(dir string) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	var size int64
	files, _ := cassettes.Files(dir) // a folder that cannot be read fails in loading
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			size += info.Size()
		}
	}
	limit := max(2*size, 64<<20)
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
