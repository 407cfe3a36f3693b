// The sentinel errors of a write that failed; cassettes exports the same
// values, so callers test them with errors.Is(err, cassettes.ErrWrite).

package safefile

import "errors"

var (
	// ErrUnsafeName: a cassette name that could escape the cassette folder.
	ErrUnsafeName = errors.New("unsafe cassette name")
	// ErrSymlink: a path adkproxy would write (a journal, a cassette or a
	// folder below the cassettes folder) is a symbolic link; adkproxy never
	// writes through one.
	ErrSymlink = errors.New("refusing to write through a symbolic link")
	// ErrWrite: a cassette could not be written to disk.
	ErrWrite = errors.New("cassette could not be written")
)
