//go:build unix

package reclock

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// acquire opens and flocks the lock file at path; prev is what a holder
// that died left in it. The holder deletes the file before unlocking, so
// a file locked after it was deleted is not the lock any more: the inode
// is checked and the open retried.
func acquire(path string) (f *os.File, prev []byte, err error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return nil, nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			content, _ := io.ReadAll(io.LimitReader(f, 4096))
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, nil, &heldError{content}
			}
			return nil, nil, err
		}
		opened, err1 := f.Stat()
		named, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(opened, named) {
			content, err := io.ReadAll(io.LimitReader(f, 4096))
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			return f, content, nil
		}
		f.Close()
	}
}
