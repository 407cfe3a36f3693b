// Flags after a command's arguments, where its usage puts them.

package main

import (
	"flag"
	"io"

	"github.com/urfave/cli/v2"
)

// argsWithTrailingFlags returns the command's arguments with any of its
// own flags that follow the first one parsed and set on c: urfave/cli
// stops reading flags at the first argument, while `import FORMAT FILE
// --out DIR` is how the usage writes them. A bad value or an unknown flag
// is a usage error naming cmd.
func argsWithTrailingFlags(c *cli.Context, cmd string) ([]string, error) {
	args := c.Args().Slice()
	if len(args) <= 1 {
		return args, nil
	}
	set := flag.NewFlagSet(cmd, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			set.Var(contextFlag{c: c, name: name, isBool: isBool}, name, "")
		}
	}
	if err := set.Parse(args[1:]); err != nil {
		return nil, usageErrorf("%s: %v", cmd, err)
	}
	return append(args[:1], set.Args()...), nil
}

// contextFlag is a flag whose value goes to the cli context's flag of the
// same name (a slice flag appends, as on the command line before FILE).
type contextFlag struct {
	c      *cli.Context
	name   string
	isBool bool
}

func (f contextFlag) String() string     { return "" }
func (f contextFlag) Set(s string) error { return f.c.Set(f.name, s) }
func (f contextFlag) IsBoolFlag() bool   { return f.isBool }
