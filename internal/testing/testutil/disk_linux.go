package testutil

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// SmallDisk mounts a tmpfs of size bytes on a new folder and returns it,
// unmounted when the test ends: a disk that fills up, for tests of what
// happens then. Mounting needs root: without it the test is skipped
// (failed under CI, which runs as root).
func SmallDisk(t testing.TB, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		Require(t, "root (to mount a small tmpfs that fills up)")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size="+strconv.Itoa(size)+",mode=0755"); err != nil {
		Require(t, "a tmpfs mount ("+err.Error()+")")
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}
