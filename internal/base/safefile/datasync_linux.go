//go:build linux

package safefile

import (
	"os"
	"syscall"
)

// SyncData makes what was written to f durable with fdatasync: the data and
// the metadata needed to read it back (the size when it grew, the blocks
// behind it), not the modification time. A record written over the
// journal's prewritten tail (internal/base/journalfile's prewrite.go) changes no size and no
// block map, so its sync is a flush of the data alone, without a commit of
// the filesystem's own journal.
func SyncData(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = syscall.Fdatasync(int(fd)); serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}
