// Requests refused because what they would have recorded could not be
// written safely: a cassette or journal that is a link, an exchange the
// journal could not take (a full disk). Each was answered with an error
// and recorded nowhere, so the run fails as a save that failed does.

package proxy

import (
	"fmt"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
)

// unwritten counts the requests refused because they could not be
// recorded, and keeps the first one's error, which names the file.
type unwritten struct {
	mu    sync.Mutex
	n     int
	first error
}

func (u *unwritten) add(err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == 0 {
		u.first = err
	}
	u.n++
}

// failure is nil, or an error matching cassettes.ErrWrite (exit 73) and
// ErrRunFailed.
func (u *unwritten) failure() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == 0 {
		return nil
	}
	return fmt.Errorf("%w (%w): %d request(s) refused and not recorded because their cassette could not be written safely; the first: %v",
		ErrRunFailed, cassettes.ErrWrite, u.n, u.first)
}
