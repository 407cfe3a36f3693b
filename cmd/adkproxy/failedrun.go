// A record run whose COMMAND failed keeps the cassettes it would have
// replaced, unless --save-on-failure.

package main

import (
	"fmt"
	"io"

	"github.com/adkproxy/adkproxy/proxy"
	"github.com/urfave/cli/v2"
)

// closeProxy writes the cassettes once the server has stopped, setting a
// failed run's recordings aside (proxy.Server.CloseFailed) and saying where.
func closeProxy(c *cli.Context, srv *proxy.Server, runErr error, stderr io.Writer) error {
	if runErr == nil || c.Bool("save-on-failure") || !c.Command.HasName("record") {
		return srv.Close()
	}
	aside, err := srv.CloseFailed()
	for _, a := range aside {
		fmt.Fprintf(stderr, "adkproxy: the command failed, so cassette %s (%s) was kept as it was; this run's %d exchange(s) are in %s, which replay ignores. "+
			"To keep them, move that file over the cassette, or record again with --save-on-failure.\n", a.Cassette, a.Kept, a.Exchanges, a.File)
	}
	return err
}
