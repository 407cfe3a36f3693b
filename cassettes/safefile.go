// The cassettes folder's rule for files (internal/base/safefile: no link
// followed below the folder, regular files only, atomic and synced
// writes), under the names this package's files use.

package cassettes

import "github.com/adkproxy/adkproxy/internal/base/safefile"

const oNoFollow = safefile.NoFollow

// CheckNoSymlinks refuses path when it, or a folder between dir and it, is
// a symbolic link. Parts that do not exist yet are fine: adkproxy makes
// them as real folders and files.
func CheckNoSymlinks(dir, path string) error { return safefile.CheckNoSymlinks(dir, path) }
