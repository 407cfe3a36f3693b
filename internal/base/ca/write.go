// Writing a CA file so that a reader never sees half of it and
// nothing already there, a symlink included, is ever replaced.

package ca

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeNew writes data to path with mode perm: into a fresh temporary file
// in the same folder (created with O_EXCL, so never through a symlink),
// synced, then hard-linked to path, which fails if anything, even a
// dangling symlink, is there already.
func writeNew(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, reason(err))
	}
	defer os.Remove(tmp.Name())
	fail := func(err error) error {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %v", path, reason(err))
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%w: %s appeared while the CA was being created", ErrExists, path)
		}
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
