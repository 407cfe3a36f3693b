// Flag construction (every flag gets its ADKPROXY_ variable) and the
// flags record and replay share.

package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// envFor gives every flag its ADKPROXY_<FLAG> environment variable.
func envFor(name string) []string {
	return []string{"ADKPROXY_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))}
}

func stringFlag(name, value, usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: name, Value: value, Usage: usage, EnvVars: envFor(name)}
}

func boolFlag(name, usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: name, Usage: usage, EnvVars: envFor(name)}
}

// DefaultListen is the fixed address adkproxy listens on when run without a
// command and without --listen.
const DefaultListen = "127.0.0.1:9787"

// commonFlags are shared by record and replay.
func commonFlags() []cli.Flag {
	return append([]cli.Flag{
		stringFlag("cassettes", "", "`DIR` holding the cassettes (required)"),
		stringFlag("cassette", "default", "cassette `NAME` for requests without an X-Adkproxy-Cassette or Test-Name header"),
		stringFlag("listen", DefaultListen, "`ADDR` to listen on; :0 picks a free port. With a COMMAND the default is a free port on 127.0.0.1"),
		stringFlag("addr-file", "", "write the address actually listened on to `FILE` once listening"),
		&cli.StringSliceFlag{Name: "redact", Usage: "also scrub `VALUE` from cassettes, logs and matching (repeatable)", EnvVars: envFor("redact")},
		&cli.StringSliceFlag{Name: "keep-header", Usage: "store header `NAME` as sent although its name looks like a credential's (token, secret, key, auth, password, signature); repeatable", EnvVars: envFor("keep-header")},
		&cli.Int64Flag{Name: "max-body", Value: 64 << 20, Usage: "largest request or response body in `BYTES` (decoded size); a larger request gets 413, a larger answer is passed on whole but not recorded and the run fails", EnvVars: envFor("max-body")},
		stringFlag("log-level", "info", "`LEVEL` of log lines on stderr: debug, info, warn or error"),
		stringFlag("log-format", "", "`FORMAT` of log lines on stderr: plain (like adkproxy's other lines; the default on a terminal), text (logfmt, multi-line details as indented lines; the default elsewhere) or json (one record a line)"),
		&cli.StringSliceFlag{Name: "ignore", Usage: "leave the request field at `PATH` (e.g. generationConfig.seed, contents[*].parts[*].thought) out of matching and diffs (repeatable)", EnvVars: envFor("ignore")},
		stringFlag("report", "", "write every request's outcome (matched, mismatched, unmatched, unused, recorded) to `FILE` as JSON"),
		stringFlag("control-token", "", "let peers that send `TOKEN` as a bearer token use the /_adkproxy/ control API; without it only loopback peers may"),
	}, limitFlags()...)
}
