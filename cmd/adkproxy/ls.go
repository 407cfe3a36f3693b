// The ls command: flags and wiring; the run is recorded's, its views runview's.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/htmlreport"
	"github.com/adkproxy/adkproxy/internal/feature/report/runview"
	"github.com/urfave/cli/v2"
)

const lsExitStatusHelp = `EXIT STATUS:
   0    success (with --stale: no cassette is stale)
   1    --stale: a cassette was recorded longer ago than AGE, or does not say when
   64   usage error (unknown flag, missing --cassettes, bad --format or --stale)
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
			"are cut with …; --json prints everything, uncut; --format html writes one self-contained page.\n" +
			"Each cassette's provenance (when and by which adkproxy, clients, frameworks and models it was\n" +
			"recorded with) is shown under its name. --stale AGE lists only the cassettes recorded longer\n" +
			"ago than AGE (90d, 12w, 36h) or that do not say when, and exits 1 when there are any.\n\n" + lsExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`PATH` of the cassettes: a folder, or one cassette file (required; or give it as the argument)"),
			boolFlag("json", "print a JSON document instead of the table (same as --format json)"),
			stringFlag("format", "table", "output `FORMAT`: table, json, or html (one self-contained page, each conversation as a timeline)"),
			stringFlag("stale", "", "list only the cassettes recorded more than `AGE` ago (90d, 12w, 36h) or at no recorded time; exit 1 when any is"),
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
	var age time.Duration
	if c.IsSet("stale") {
		var err error
		if age, err = runview.ParseAge(c.String("stale")); err != nil || format == "html" {
			return usageErrorf("ls: --stale: %s", staleUsage(err))
		}
	}
	if format == "table" && !c.IsSet("stale") {
		// Printed as it is made, one invocation's model at a time, with
		// collection paced as while loading: a table of 200,000 steps is
		// tens of MB, and the model of them all as large as the cassette
		// (issue 39 item 12).
		dir, loaded, restoreGC, err := loadCassettesPaced(c)
		if err != nil {
			return err
		}
		defer restoreGC()
		out := bufio.NewWriter(c.App.Writer)
		runview.StreamTable(out, dir, loaded)
		return out.Flush()
	}
	dir, loaded, err := loadCassettes(c)
	if err != nil {
		return err
	}
	run := recorded.Build(dir, loaded)
	if c.IsSet("stale") {
		return lsStale(c, run, age, format)
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

func staleUsage(err error) string {
	if err != nil {
		return err.Error()
	}
	return "lists in table or json format, not html"
}

// lsStale prints the cassettes older than age; exit 1 when there are any.
func lsStale(c *cli.Context, run recorded.Run, age time.Duration, format string) error {
	stale := runview.StaleOf(run, age, time.Now())
	var out bytes.Buffer
	if format == "json" {
		b, err := textfmt.IndentedJSON(map[string]any{"stale": stale})
		if err != nil {
			return err
		}
		out.Write(b)
	} else {
		runview.WriteStale(&out, stale, c.String("stale"))
	}
	if _, err := c.App.Writer.Write(out.Bytes()); err != nil {
		return err
	}
	if len(stale) > 0 {
		return withCode(exitFailure, fmt.Errorf("ls: %s recorded more than %s ago or at no recorded time", textfmt.Plural(len(stale), "cassette"), c.String("stale")))
	}
	return nil
}
