// Reading only regular files: a cassette, journal or side file that is a
// device (a link to /dev/zero), a FIFO or a socket would be read forever
// or block forever, so it is refused naming the file.

package cassettes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular: the file is a device, FIFO, socket or folder.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading (following a link, as cassettes may
// be links to files elsewhere) and insists that what it reaches is a
// regular file of at most limit bytes. A FIFO is opened without waiting
// for a writer, so the check itself never blocks.
func openRegular(path string, limit int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = checkRegular(info, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular says what is wrong with info for a file adkproxy reads;
// callers name the file.
func checkRegular(info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%w: it is a %s; cassettes, journals and side files must be regular files (replace the link or special file with the file itself)", ErrNotRegular, kindOf(info.Mode()))
	}
	if info.Size() > limit {
		return fmt.Errorf("it is %d bytes, %w", info.Size(), errTooLarge(limit))
	}
	return nil
}

func kindOf(m fs.FileMode) string {
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
