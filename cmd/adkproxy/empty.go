// A run no request reached: the agent bypassed adkproxy (a base URL of its
// own, a client that ignores the variables), so a green run proves nothing.

package main

import (
	"errors"
	"fmt"

	"github.com/adkproxy/adkproxy/internal/engine/clientenv"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/urfave/cli/v2"
)

// allowEmptyFlag lets a wrapped command send nothing.
func allowEmptyFlag() cli.Flag {
	return boolFlag("allow-empty", "let the wrapped COMMAND send no request (by default a record run that recorded nothing, or a strict replay run no request reached while cassettes exist, fails with 76)")
}

// nothingReached is the failure of a wrapped command that sent adkproxy no
// request, by runpolicy's rule: in record (nothing to write) and in strict
// replay while the folder holds cassettes. It is nil when a request came,
// when the run allows that (--allow-empty, lenient replay, no command), and
// in replay of an empty folder.
func nothingReached(c *cli.Context, mode proxy.Mode, srv *proxy.Server, base string, placeholder bool) error {
	if len(c.Args().Slice()) == 0 || c.Bool("allow-empty") {
		return nil
	}
	var what string
	switch runpolicy.NothingReached(srv, runpolicy.Scope{Recording: mode == proxy.ModeRecord, Strict: c.String("mode") == "strict"}) {
	case runpolicy.NothingRecorded:
		what = "nothing was recorded: no request reached adkproxy (the cassettes are as they were)"
	case runpolicy.NothingReplayed:
		what = fmt.Sprintf("no request reached adkproxy, but %s holds %d cassette(s): the command ran without the agent talking to it",
			c.String("cassettes"), len(srv.Cassettes()))
	default:
		return nil
	}
	vars := "GOOGLE_GEMINI_BASE_URL and GOOGLE_VERTEX_BASE_URL (and HTTPS_PROXY)"
	if c.Bool("no-forward-proxy") {
		vars = "GOOGLE_GEMINI_BASE_URL and GOOGLE_VERTEX_BASE_URL"
	}
	return errors.New(clientenv.NothingReached(what, vars, base, placeholder))
}
