// The ls command: flags and wiring; the run is recorded's, its views runview's.

package main

import (
	"bufio"
	"bytes"

	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/runview"
	"github.com/urfave/cli/v2"
)

const lsExitStatusHelp = `EXIT STATUS:
   0    success
   64   usage error (unknown flag, missing --cassettes, bad --format)
   65   a cassette is unreadable, corrupt or of an unknown version, or the folder is missing`

func lsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list the sessions, invocations, agents, steps and tool calls in cassettes",
		Description: "Reads every cassette in the folder (version 1 files are organised into sessions and\n" +
			"invocations as replay would) and prints one block per cassette: each invocation with its user\n" +
			"text, agents, step count, tool calls and tokens, and each step with its agent, the tool results\n" +
			"it received, the tool calls and text it answered with, and its finish reason and HTTP status\n" +
			"when they are unusual. Requests that are not model calls are listed under 'other'. Long values\n" +
			"are cut with …; --json prints everything, uncut; --format html writes one self-contained page.\n\n" + lsExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`PATH` of the cassettes: a folder, or one cassette file (required; or give it as the argument)"),
			boolFlag("json", "print a JSON document instead of the table (same as --format json)"),
			stringFlag("format", "table", "output `FORMAT`: table, json, or html (one self-contained page, each conversation as a timeline)"),
		},
		ArgsUsage:    "[PATH]",
		Action:       runLs,
		OnUsageError: commandUsageError,
	}
}

func runLs(c *cli.Context) error {
	format := c.String("format")
	if c.Bool("json") {
		format = "json"
	}
	if format != "table" && format != "json" && format != "html" {
		return usageErrorf("ls: --format %q: want table, json or html", format)
	}
	dir, loaded, err := loadCassettes(c)
	if err != nil {
		return err
	}
	run := recorded.Build(dir, loaded)
	if format == "table" {
		// Printed as it is made: a table of 200,000 steps is tens of MB.
		out := bufio.NewWriter(c.App.Writer)
		runview.WriteTable(out, dir, run)
		return out.Flush()
	}
	var out bytes.Buffer
	if format == "json" {
		err = runview.WriteJSON(&out, run)
	} else {
		err = htmlreport.WriteRun(&out, dir, run)
	}
	if err != nil {
		return err
	}
	_, err = c.App.Writer.Write(out.Bytes())
	return err
}
