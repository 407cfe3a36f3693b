// The flags of the one outbound policy (internal/base/outbound) shared by
// every command that talks to a server it does not run: drive,
// conformance, simulate, export --otlp-endpoint.

package main

import (
	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/base/outbound"
)

func outboundFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "max-answer", Value: outbound.DefaultMaxAnswer, EnvVars: envFor("max-answer"),
			Usage: "largest answer in `BYTES` read from a server (an ADK API server's event stream, a collector's reply); past it the answer is an error naming the URL"},
		&cli.StringSliceFlag{Name: "allow-redirect", EnvVars: envFor("allow-redirect"),
			Usage: "`HOST:PORT` a server may redirect to besides its own origin (repeat for more); any other redirect is refused, naming it"},
	}
}

// outboundPolicy reads the flags of outboundFlags.
func outboundPolicy(c *cli.Context) (outbound.Policy, error) {
	max := c.Int64("max-answer")
	if max <= 0 {
		return outbound.Policy{}, usageErrorf("--max-answer %d: want a positive number of bytes", max)
	}
	return outbound.Policy{MaxAnswer: max, AllowRedirect: c.StringSlice("allow-redirect")}, nil
}
