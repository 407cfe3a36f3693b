// Exit statuses: their numbers, how an error maps to one, and the help
// text that documents them.

package main

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/proxy"
)

// Exit statuses, from sysexits.h where one fits. A wrapped command's own
// non-zero status is passed through unchanged, and a command killed by
// signal N gives 128+N, as shells do.
const (
	exitOK        = 0
	exitFailure   = 1  // scoring: a criterion failed
	exitUsage     = 64 // EX_USAGE: bad flags or arguments
	exitDataErr   = 65 // EX_DATAERR: a cassette is unreadable, corrupt or of an unknown version
	exitCantWrite = 73 // EX_CANTCREAT: a cassette could not be written (or would have leaked a secret)
	exitTempFail  = 75 // EX_TEMPFAIL: another recorder holds the cassettes folder; try again later
	exitUnmatched = 76 // EX_PROTOCOL: the run failed by its mode's rules (proxy.Server.Failure)
	exitNoCommand = 127
)

// exitError carries an exit status up to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

func usageErrorf(format string, args ...any) error {
	return withCode(exitUsage, fmt.Errorf(format, args...))
}

// exitCodeFor maps an error to the status documented in --help.
func exitCodeFor(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, cassettes.ErrCorrupt), errors.Is(err, cassettes.ErrVersion), errors.Is(err, cassettes.ErrNotFound):
		return exitDataErr
	case errors.Is(err, cassettes.ErrSecretLeak), errors.Is(err, cassettes.ErrWrite):
		return exitCantWrite
	case errors.Is(err, proxy.ErrRunFailed):
		return exitUnmatched
	}
	return exitFailure
}

const exitStatusHelp = `EXIT STATUS:
   0    success
   N    the wrapped COMMAND's own non-zero status, passed through
   128+N  the wrapped COMMAND was killed by signal N
   64   usage error (unknown flag, missing --cassettes, bad value)
   65   a cassette is unreadable, corrupt or of an unknown version, or a local CA file
        (--ca-dir) is missing, unreadable or malformed
   73   a cassette could not be written, or would have contained a secret; or record refused
        a request it could not record safely (a cassette or journal that is a link, a full disk)
   75   another adkproxy is recording into the cassettes folder (named with its PID)
   76   strict replay (or record --mode once on a cassette that exists) saw a mismatched or
        unmatched request, or left a recording unused, while COMMAND exited 0; or COMMAND
        sent no request to record, or to strict replay while cassettes exist (--allow-empty)
   127  COMMAND could not be started`
