// What the commands that read a cassette folder share: the required
// --cassettes argument, and output to stdout or atomically to --out.

package main

import (
	"fmt"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/urfave/cli/v2"
)

// cassettesDir returns the required --cassettes folder of a command that
// takes no arguments; argHint says where a stray argument probably belongs.
func cassettesDir(c *cli.Context, argHint string) (string, error) {
	dir := c.String("cassettes")
	if dir == "" {
		return "", usageErrorf("%s: --cassettes DIR is required (or set ADKPROXY_CASSETTES)", c.Command.Name)
	}
	if argHint != "" && c.Args().Present() {
		return "", usageErrorf("%s takes no arguments, got %q; %s", c.Command.Name, c.Args().First(), argHint)
	}
	return dir, nil
}

// writeOutput sends a command's output to stdout, or atomically to the
// --out file (exit 73 when that cannot be written).
func writeOutput(c *cli.Context, path string, data []byte) error {
	if path == "" {
		_, err := c.App.Writer.Write(data)
		return err
	}
	if err := cassettes.WriteFileAtomic(path, data); err != nil {
		return withCode(exitCantWrite, fmt.Errorf("--out: %w", err))
	}
	return nil
}
