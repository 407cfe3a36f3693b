//go:build !linux

package testutil

import "testing"

// SmallDisk needs Linux's tmpfs: elsewhere the test is skipped (failed
// under CI).
func SmallDisk(t testing.TB, size int) string {
	t.Helper()
	Require(t, "a small tmpfs (Linux only)")
	return ""
}
