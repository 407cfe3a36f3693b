// Opening and creating files without following symbolic links.

package safefile

// Writing never follows a symbolic link: a link committed to a repository
// where a journal or cassette goes would otherwise let a recording
// overwrite any file the user can write. The cassettes folder itself may
// be a link (the user named it); links below it are refused, folders
// included, rather than followed.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CheckNoSymlinks refuses path when it, or a folder between dir and it, is
// a symbolic link. Parts that do not exist yet are fine: adkproxy makes
// them as real folders and files.
func CheckNoSymlinks(dir, path string) error {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%w: %s is outside the cassettes folder %s", ErrUnsafeName, path, dir)
	}
	cur := dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrWrite, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return symlinkError(cur)
		}
	}
	return nil
}

func symlinkError(path string) error {
	target, _ := os.Readlink(path)
	return fmt.Errorf("%w: %s is a symbolic link (to %s); adkproxy does not follow links inside the cassettes folder: replace it with a real file or folder, or delete it",
		ErrSymlink, path, target)
}

// CreateFresh makes a new file at path for writing, removing a regular
// file left there first. It refuses a link at path, and the file is
// created exclusively without following links, so nothing swapped in
// between is written through either.
func CreateFresh(path string) (*os.File, error) {
	info, err := os.Lstat(path)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
		return nil, symlinkError(path)
	case err == nil:
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|NoFollow, 0o644)
}

// ReadNoFollow reads the file at path, refusing a link, a file that is not
// regular and one over MaxSize.
func ReadNoFollow(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, symlinkError(path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|NoFollow|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err = f.Stat()
	if err == nil {
		err = CheckRegular(info, MaxSize) // a FIFO would block, a device never end
	}
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(f, MaxSize))
}
