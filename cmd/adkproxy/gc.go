// Pacing garbage collection by memory while a command loads its
// cassettes: it tunes start-up time and peak memory, so it stays out of
// the loading code.

package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/adkproxy/adkproxy/cassettes"
)

// loadingGC paces garbage collection by memory while a command loads the
// cassettes at path (a folder or one file), and returns the function that
// restores the usual pacing. Loading grows the heap from nothing to about
// the cassettes' size, and the default pacing collects at every doubling
// of it: dozens of collections for a large folder, a fifth of start-up.
// With collection paced only by a limit of the memory in use at the start
// plus 1.5 times the YAML's size (at least loadingRoom), garbage builds up
// to that limit, no further, and is collected a few times; a limit of twice the size let a large body's
// cassette peak above twice its size (issue 39 item 5). Restoring collects
// once when the cassettes are large (collectFrom), so that the usual
// pacing starts from what loading kept rather than from a heap full of its
// garbage, and lets the heap grow to twice that, not twice the garbage
// too. A command that reads what it loaded once and exits (ls's table)
// restores only after that: its model of each invocation is garbage as
// soon as it is printed (issue 39 item 12). GOGC or GOMEMLIMIT set by the
// user are left alone.
func loadingGC(path string) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	var size int64
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		size = info.Size()
	}
	files, _ := cassettes.Files(path) // a folder that cannot be read fails in loading
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			size += info.Size()
		}
	}
	limit := inUse() + max(size*3/2, loadingRoom)
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		if size >= collectFrom {
			runtime.GC()
		}
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// loadingRoom is the least room above the memory in use at the start that
// loading may fill before the first collection. A fixed limit of 64 MiB
// let all of a 10 MB cassette's loading garbage stay: ls peaked at 5 times
// the file above the idle process (issue 39 items 5 and 12). With less
// than 8 MiB a 1 MiB body's ls peaked higher, not lower. Small cassettes
// pay for their bound in collections: loading allocates many times the
// file, and a 10 MB cassette of small steps starts in more than twice as
// long as with no collection (docs/performance.md).
const loadingRoom = 8 << 20

// inUse is the memory the Go runtime holds for the process now (heap,
// stacks, its own structures; not what it gave back to the system): the
// figure debug.SetMemoryLimit bounds.
func inUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// collectFrom is the size of cassettes from which loading them ends with a
// collection: it takes a few milliseconds per 10 MB, a small part of
// loading them, and below it the heap is small anyway.
const collectFrom = 32 << 20
