// Atomic replacement and durable syncs: what a crash leaves is the old
// file or the new one, and a rename or removal outlives it.

package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// MaxSize bounds what is read of a file of the cassettes folder, so a
// mistaken path (or a hostile file) cannot take all memory.
const MaxSize = 1 << 30

// WriteFileAtomic replaces path with data through a synced temporary file
// in the same folder and a rename, then syncs the folder so the rename
// itself survives a crash.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename or removal in dir durable. It is best effort: a
// file system that cannot sync a folder has nothing more to offer.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// CheckRegular says what is wrong with info for a file adkproxy reads
// from the cassettes folder (userfile's rule, with the advice for a
// cassette too large); callers name the file.
func CheckRegular(info fs.FileInfo, limit int64) error {
	return Advise(userfile.Check(info, limit))
}

// Advise adds to userfile's refusal of a file too large what to do about
// a cassette.
func Advise(err error) error {
	if errors.Is(err, userfile.ErrTooLarge) {
		return fmt.Errorf("%w; split the cassette", err)
	}
	return err
}
