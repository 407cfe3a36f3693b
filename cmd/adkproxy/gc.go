package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

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
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, cassettes.Extension) {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	limit := max(2*size, 64<<20)
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
