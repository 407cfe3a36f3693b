// Flags after positional arguments: urfave/cli stops reading flags at the
// first argument, so 'adkproxy diff old new --format html' would take
// "--format" for a path. The arguments are put in the order it reads.

package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst moves the flags (with their values) that follow a command's
// positional arguments in front of them. Everything after "--" stays as
// it is, and so do record's, replay's and mcp's arguments, which are a wrapped
// command with flags of its own. A completion request stays last.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	tail := []string(nil)
	if last := args[len(args)-1]; last == completionFlag {
		args, tail = args[:len(args)-1], []string{last}
	}
	out := []string{args[0]}
	commands, flags := app.Commands, []cli.Flag(nil)
	i := 1
	for ; i < len(args); i++ { // the command path: "ca show", "import adk-conformance"
		var cmd *cli.Command
		for _, c := range commands {
			if c.HasName(args[i]) {
				cmd = c
			}
		}
		if cmd == nil {
			break
		}
		out = append(out, args[i])
		commands, flags = cmd.Subcommands, cmd.Flags
		if cmd.Name == "record" || cmd.Name == "replay" || cmd.Name == "mcp" {
			return append(append(out, args[i+1:]...), tail...)
		}
	}
	if flags == nil {
		return append(append(out, args[i:]...), tail...)
	}
	var named, positional []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		named = append(named, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && takesValue(flags, name) && i+1 < len(args) {
			i++
			named = append(named, args[i])
		}
	}
	out = append(append(out, named...), positional...)
	return append(append(out, args[i:]...), tail...)
}

// takesValue reports whether the flag called name reads the next argument.
func takesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				v, ok := f.(cli.DocGenerationFlag)
				return ok && v.TakesValue()
			}
		}
	}
	return false
}
