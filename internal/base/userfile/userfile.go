// Package userfile reads the files adkproxy takes from a user's tree —
// eval sets, configs, scenarios, faults files, fake scripts, judge
// prompts, imports, reports — by the cassettes' rule: regular files only
// (a link is followed, but must reach a regular file), size-capped, the
// file named in every refusal. A link to /dev/zero would be read until
// memory ran out; a FIFO would block forever.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSize bounds a file read from a user's tree (cassettes have their own,
// larger cap).
const MaxSize = 256 << 20

var (
	// ErrNotRegular: the file is a device, FIFO, socket or folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is over its cap.
	ErrTooLarge = errors.New("too large")
)

// Error is a refused file.
type Error struct {
	File string
	Err  error
}

func (e *Error) Error() string { return e.File + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Read reads path whole, within MaxSize.
func Read(path string) ([]byte, error) { return ReadLimit(path, MaxSize) }

// ReadLimit reads path whole: a regular file of at most limit bytes.
func ReadLimit(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit { // it grew since it was checked
		return nil, &Error{File: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)}
	}
	return data, nil
}

// Open opens path for reading (following a link) and insists that what it
// reaches is a regular file of at most limit bytes. A FIFO is opened
// without waiting for a writer, so the check itself never blocks.
func Open(path string, limit int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = Check(info, limit)
	}
	if err != nil {
		f.Close()
		return nil, &Error{File: path, Err: err}
	}
	return f, nil
}

// Check says what is wrong with info for a file adkproxy reads; callers
// name the file.
func Check(info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%w: it is a %s; adkproxy reads only regular files (replace the link or special file with the file itself)", ErrNotRegular, KindOf(info.Mode()))
	}
	if info.Size() > limit {
		return fmt.Errorf("%w: it is %d bytes, more than %d", ErrTooLarge, info.Size(), limit)
	}
	return nil
}

// KindOf names what a non-regular file is.
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
