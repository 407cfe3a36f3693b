// Where a forwarded request is analysed while it goes upstream: on
// goroutines that stay.

package proxy

import (
	"runtime"
	"sync"
)

// analyse runs f, the analysis of a forwarded request, beside the handler.
// An idle analyst takes it; when every one is busy it gets a goroutine of
// its own, so no request waits for another's analysis. Reading a body
// recurses through it: a new goroutine per request grew its stack anew
// each time (about a tenth of the record handler's CPU), an analyst's has
// grown once.
func analyse(f func()) {
	startAnalysts()
	select {
	case analystWork <- f:
	default:
		go f()
	}
}

// analystWork hands work to an idle analyst (unbuffered: a send succeeds
// only when one is waiting). The analysts serve every Server of the
// process and live as long as it.
var analystWork = make(chan func())

var startAnalysts = sync.OnceFunc(func() {
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for f := range analystWork {
				f()
			}
		}()
	}
})
