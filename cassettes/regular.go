// Reading only regular files: a cassette, journal or side file that is a
// device (a link to /dev/zero), a FIFO or a socket would be read forever
// or block forever, so it is refused naming the file. The rule is
// userfile's, which every other file adkproxy reads from a user's tree
// follows too; only the advice for a file too large is the cassettes'.

package cassettes

import (
	"errors"
	"io/fs"
	"os"

	"github.com/adkproxy/adkproxy/internal/base/safefile"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// ErrNotRegular: the file is a device, FIFO, socket or folder.
var ErrNotRegular = userfile.ErrNotRegular

// openRegular opens path for reading (following a link, as cassettes may
// be links to files elsewhere) and insists that what it reaches is a
// regular file of at most limit bytes, without blocking on a FIFO.
// Errors do not name the file: callers do.
func openRegular(path string, limit int64) (*os.File, error) {
	f, err := userfile.Open(path, limit)
	if ue := (*userfile.Error)(nil); errors.As(err, &ue) {
		return nil, safefile.Advise(ue.Err)
	}
	return f, err
}

// checkRegular says what is wrong with info for a file adkproxy reads;
// callers name the file.
func checkRegular(info fs.FileInfo, limit int64) error { return safefile.CheckRegular(info, limit) }
