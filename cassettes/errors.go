// The package's sentinel errors, in one place so callers see every kind of
// failure they can test for with errors.Is.

package cassettes

import (
	"errors"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
)

// MissingFolderError: the cassette folder Dir does not exist. It matches
// ErrNotFound; callers add how to create it (the CLI: record into it).
type MissingFolderError struct{ Dir string }

// Error names the folder that does not exist.
func (e *MissingFolderError) Error() string {
	return ErrNotFound.Error() + ": the cassette folder " + e.Dir + " does not exist"
}

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *MissingFolderError) Is(target error) bool { return target == ErrNotFound }

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrCorrupt: a cassette file exists but cannot be read as a cassette.
	ErrCorrupt = errors.New("corrupt cassette")
	// ErrVersion: a cassette was written by a newer (or unknown) format.
	ErrVersion = errors.New("unsupported cassette version")
	// ErrNotFound: no cassette file by that name.
	ErrNotFound = errors.New("cassette not found")
	// ErrUnsafeName: a cassette name that could escape the cassette folder.
	ErrUnsafeName = safefile.ErrUnsafeName
	// ErrSecretLeak: a cassette about to be written still holds a secret.
	ErrSecretLeak = errors.New("cassette would contain a secret")
	// ErrSymlink: a path adkproxy would write (a journal, a cassette or a
	// folder below the cassettes folder) is a symbolic link; adkproxy never
	// writes through one.
	ErrSymlink = safefile.ErrSymlink
	// ErrWrite: a cassette could not be written to disk.
	ErrWrite = safefile.ErrWrite
)
