package jinja_test

import (
	"syscall"
	"testing"
)

// limitAddressSpace caps the process's address space, so that a rendering
// that allocates gigabytes fails alone instead of exhausting the machine
// (not under the race detector, whose shadow memory needs far more).
func limitAddressSpace(t *testing.T, bytes uint64) {
	if raceEnabled {
		return
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: bytes, Max: bytes}); err != nil {
		t.Fatal(err)
	}
}
